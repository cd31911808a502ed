"""analytics tables

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "analytics_tables",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("sql_name", sa.String(length=63), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("grain", sa.Text(), nullable=True),
        sa.Column("columns_json", sa.Text(), nullable=False),
        sa.Column("partition_spec_json", sa.Text(), nullable=False),
        sa.Column("semantics_json", sa.Text(), nullable=False),
        sa.Column("semantics_version", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("last_load_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_analytics_tables_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analytics_tables")),
        sa.UniqueConstraint("company_id", "sql_name", name="uq_analytics_tables_company_sql_name"),
    )
    with op.batch_alter_table("analytics_tables", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_analytics_tables_company_id"), ["company_id"], unique=False)

    op.create_table(
        "table_grants",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("level", sa.String(length=8), nullable=False),
        sa.Column("row_filter", sa.Text(), nullable=True),
        sa.Column("hidden_columns_json", sa.Text(), nullable=False),
        sa.Column("can_reveal", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_table_grants_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["analytics_tables.id"],
            name=op.f("fk_table_grants_table_id_analytics_tables"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_table_grants_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("table_id", "user_id", name=op.f("pk_table_grants")),
    )
    with op.batch_alter_table("table_grants", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_table_grants_company_id"), ["company_id"], unique=False)

    op.create_table(
        "table_writes",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload_json", sa.Text(), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("dispatched_at", sa.DateTime(), nullable=True),
        sa.Column("committed_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_table_writes_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["analytics_tables.id"],
            name=op.f("fk_table_writes_table_id_analytics_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_writes")),
    )
    with op.batch_alter_table("table_writes", schema=None) as batch_op:
        batch_op.create_index("ix_table_writes_pending", ["status", "table_id", "created_at"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("table_writes", schema=None) as batch_op:
        batch_op.drop_index("ix_table_writes_pending")

    op.drop_table("table_writes")
    with op.batch_alter_table("table_grants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_table_grants_company_id"))

    op.drop_table("table_grants")
    with op.batch_alter_table("analytics_tables", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analytics_tables_company_id"))

    op.drop_table("analytics_tables")
