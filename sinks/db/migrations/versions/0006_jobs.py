"""jobs

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("tables_json", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=False),
        sa.Column("sql", sa.Text(), nullable=True),
        sa.Column("plan_json", sa.Text(), nullable=False),
        sa.Column("result_key", sa.String(length=300), nullable=True),
        sa.Column("result_row_count", sa.Integer(), nullable=True),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column("result_columns_json", sa.Text(), nullable=True),
        sa.Column("bytes_scanned", sa.BigInteger(), nullable=False),
        sa.Column("elapsed_ms", sa.Integer(), nullable=True),
        sa.Column("error_code", sa.String(length=32), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("error_hint", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("rows_loaded", sa.BigInteger(), nullable=True),
        sa.Column("rows_rejected", sa.BigInteger(), nullable=True),
        sa.Column("rejected_sample_json", sa.Text(), nullable=True),
        sa.Column("notes_json", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"], ["companies.id"], name=op.f("fk_jobs_company_id_companies"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["analytics_tables.id"],
            name=op.f("fk_jobs_table_id_analytics_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index("ix_jobs_company_created", ["company_id", "created_at"], unique=False)
        batch_op.create_index("ix_jobs_state_created", ["state", "created_at"], unique=False)
        batch_op.create_index("ix_jobs_table_created", ["company_id", "table_id", "created_at"], unique=False)

    with op.batch_alter_table("table_writes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("created_by", sa.String(length=32), nullable=True))


def downgrade() -> None:

    with op.batch_alter_table("table_writes", schema=None) as batch_op:
        batch_op.drop_column("created_by")

    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_table_created")
        batch_op.drop_index("ix_jobs_state_created")
        batch_op.drop_index("ix_jobs_company_created")

    op.drop_table("jobs")
