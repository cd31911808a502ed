"""Retention: company_retention (a company's own values per kind of record) and the columns of a request body
kept in the object store (webhook_payloads.body_key, body_bytes, body_sha256)

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "company_retention",
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("history_seconds", sa.BigInteger(), nullable=True),
        sa.Column("runs_seconds", sa.BigInteger(), nullable=True),
        sa.Column("jobs_seconds", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_company_retention_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("company_id", name=op.f("pk_company_retention")),
    )
    with op.batch_alter_table("webhook_payloads", schema=None) as batch_op:
        batch_op.add_column(sa.Column("body_key", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("body_bytes", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("body_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_payloads", schema=None) as batch_op:
        batch_op.drop_column("body_sha256")
        batch_op.drop_column("body_bytes")
        batch_op.drop_column("body_key")
    op.drop_table("company_retention")
