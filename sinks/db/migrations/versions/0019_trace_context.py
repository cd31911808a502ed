"""webhook_executions.trace_parent: the delivery's W3C traceparent (the history's traceId)

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: deliveries recorded before tracing have no trace; the history shows traceId null for them.
    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("trace_parent", sa.String(length=55), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.drop_column("trace_parent")
