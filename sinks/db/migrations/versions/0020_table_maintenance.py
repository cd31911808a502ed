"""Automatic table maintenance: table_maintenance (per table: the last check, compaction and expiry, and the
lease of the worker maintaining it)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02

One new table. A row is made the first time a worker looks at the table; a table without one has never been
looked at, so it comes first.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_maintenance",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("lease_holder", sa.String(length=64), nullable=True),
        sa.Column("last_checked_at", sa.DateTime(), nullable=True),
        sa.Column("last_compacted_at", sa.DateTime(), nullable=True),
        sa.Column("last_expired_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_table_maintenance_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["analytics_tables.id"],
            name=op.f("fk_table_maintenance_table_id_analytics_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_maintenance")),
    )
    with op.batch_alter_table("table_maintenance", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_table_maintenance_company_id"), ["company_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_table_maintenance_last_checked_at"), ["last_checked_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("table_maintenance", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_table_maintenance_last_checked_at"))
        batch_op.drop_index(batch_op.f("ix_table_maintenance_company_id"))
    op.drop_table("table_maintenance")
