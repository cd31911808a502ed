"""Trigger deduplication: webhook_dedup (each delivery key a webhook saw, and the execution that claimed it)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01

One new table. Its primary key (webhook_id, dedup_key) is the unique index that makes a claim race-free; the
index on expires_at serves the worker's sweep of expired keys.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhook_dedup",
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("dedup_key", sa.String(length=255), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("execution_id", sa.String(length=32), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhook_dedup_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_dedup_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("webhook_id", "dedup_key", name=op.f("pk_webhook_dedup")),
    )
    with op.batch_alter_table("webhook_dedup", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_dedup_company_id"), ["company_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_dedup_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("webhook_dedup", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_dedup_expires_at"))
        batch_op.drop_index(batch_op.f("ix_webhook_dedup_company_id"))
    op.drop_table("webhook_dedup")
