"""webhook delivery scheduling

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:

    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("available_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("dispatched_at", sa.DateTime(), nullable=True))
        batch_op.drop_index(batch_op.f("ix_webhook_executions_pending"))
        batch_op.create_index(
            "ix_webhook_executions_pending", ["status", "dispatched_at", "available_at"], unique=False
        )

    with op.batch_alter_table("webhook_payloads", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request_query_params", sa.Text(), nullable=True))


def downgrade() -> None:

    with op.batch_alter_table("webhook_payloads", schema=None) as batch_op:
        batch_op.drop_column("request_query_params")

    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_executions_pending")
        batch_op.create_index(
            batch_op.f("ix_webhook_executions_pending"), ["status", "queued_at"], unique=False
        )
        batch_op.drop_column("dispatched_at")
        batch_op.drop_column("available_at")
