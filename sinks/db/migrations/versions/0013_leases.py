"""leases: lease_until on scheduled runs and webhook delivery attempts, renewed by the acting worker

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_TABLES = ("scheduled_event_runs", "webhook_executions")


def upgrade() -> None:
    # Nullable: runs and attempts claimed before this revision have no lease, and the reconcilers judge
    # them by the old rule (running longer than the timeout plus the grace).
    for table in _TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("lease_until", sa.DateTime(), nullable=True))


def downgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("lease_until")
