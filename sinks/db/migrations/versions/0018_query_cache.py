"""jobs.cache_key and jobs.cached_from: the query result cache (a company's jobs by result-cache key)

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: jobs from before this revision have no key, so they are never answers from the cache (their
    # plans do not say which snapshots they read); loads never have one.
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("cache_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("cached_from", sa.String(length=32), nullable=True))
        batch_op.create_index("ix_jobs_cache_key", ["company_id", "cache_key"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_cache_key")
        batch_op.drop_column("cached_from")
        batch_op.drop_column("cache_key")
