"""jobs.request_id and jobs.request_digest: a query's requestId, unique per company and user

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: jobs from before this revision, loads and queries sent without a requestId keep NULL, which
    # the unique index never compares equal.
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request_id", sa.String(length=128), nullable=True))
        batch_op.add_column(sa.Column("request_digest", sa.String(length=64), nullable=True))
        batch_op.create_index("ux_jobs_request_id", ["company_id", "created_by", "request_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ux_jobs_request_id")
        batch_op.drop_column("request_digest")
        batch_op.drop_column("request_id")
