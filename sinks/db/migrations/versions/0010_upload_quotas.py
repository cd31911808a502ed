"""Upload quotas and expiry; describe and preview reads metered against the daily scan allowance

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.add_column(sa.Column("held_bytes", sa.BigInteger(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("reserved_bytes", sa.BigInteger(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("ended_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("cleaned_at", sa.DateTime(), nullable=True))
        batch_op.create_index("ix_uploads_company_state", ["company_id", "state"], unique=False)
        batch_op.create_index("ix_uploads_state_cleaned", ["state", "cleaned_at"], unique=False)
    op.create_table(
        "read_charges",
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("bytes_read", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_read_charges_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("company_id", "day", name=op.f("pk_read_charges")),
    )


def downgrade() -> None:
    op.drop_table("read_charges")
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.drop_index("ix_uploads_state_cleaned")
        batch_op.drop_index("ix_uploads_company_state")
        batch_op.drop_column("cleaned_at")
        batch_op.drop_column("ended_at")
        batch_op.drop_column("reserved_bytes")
        batch_op.drop_column("held_bytes")
