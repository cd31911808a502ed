"""The per-status history index carries the handler's duration, so the delivery stats of a window read the
index alone

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

NAME = "ix_webhook_executions_status_history"
COLUMNS = ["company_id", "webhook_id", "status", "queued_at", "id"]


def upgrade() -> None:
    op.drop_index(NAME, table_name="webhook_executions")
    op.create_index(NAME, "webhook_executions", [*COLUMNS, "duration_ms"], unique=False)


def downgrade() -> None:
    op.drop_index(NAME, table_name="webhook_executions")
    op.create_index(NAME, "webhook_executions", COLUMNS, unique=False)
