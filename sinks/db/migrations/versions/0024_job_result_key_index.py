"""jobs.result_key indexed: the hourly sweep of result files no job names looks each listed key up

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-27

Without it, each page of a thousand keys walked the whole jobs table (every job a company ever ran).
"""

from __future__ import annotations

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index("ix_jobs_result_key", ["result_key"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_result_key")
