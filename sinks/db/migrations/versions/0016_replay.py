"""Webhook replay: webhook_replays (a replayed execution's original) and replay_pacers (each company's next
free replay slot)

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01

Two new tables, nothing changed in the delivery path's own: a replayed execution's attempts are ordinary
webhook_executions rows, and the history finds their ``replayOf`` by execution id here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhook_replays",
        sa.Column("execution_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("original_execution_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhook_replays_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_replays_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("execution_id", name=op.f("pk_webhook_replays")),
    )
    with op.batch_alter_table("webhook_replays", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_replays_company_id"), ["company_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_replays_webhook_id"), ["webhook_id"], unique=False)
    op.create_table(
        "replay_pacers",
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("next_slot_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_replay_pacers_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("company_id", name=op.f("pk_replay_pacers")),
    )


def downgrade() -> None:
    op.drop_table("replay_pacers")
    with op.batch_alter_table("webhook_replays", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_replays_webhook_id"))
        batch_op.drop_index(batch_op.f("ix_webhook_replays_company_id"))
    op.drop_table("webhook_replays")
