"""Scheduler catch-up, overlap and flexible windows: catchupWindowSeconds, overlapPolicy and
flexibleTimeWindow on scheduled_events; a buffered fire and a /backfill run on scheduled_event_runs

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-04

Events from before this revision keep today's fixed catch-up window of an hour (3600 s) and take the issue's
default overlapPolicy, SKIP; their flexibleTimeWindow is OFF (NULL). No run is buffered or a backfill.
MISSED is a new value of scheduled_event_runs.status, a plain string column: nothing to migrate there.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("catchup_window_seconds", sa.Integer(), nullable=False, server_default="3600")
        )
        batch_op.add_column(
            sa.Column("overlap_policy", sa.String(length=12), nullable=False, server_default="SKIP")
        )
        batch_op.add_column(sa.Column("flex_window_minutes", sa.Integer(), nullable=True))
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        # A literal, not sa.false(): see 0021 (SQLite would copy the table).
        batch_op.add_column(sa.Column("buffered", sa.Boolean(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("backfill", sa.Boolean(), nullable=False, server_default="0"))
        batch_op.create_index("ix_scheduled_event_runs_buffered", ["buffered"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_scheduled_event_runs_buffered")
        batch_op.drop_column("backfill")
        batch_op.drop_column("buffered")
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.drop_column("flex_window_minutes")
        batch_op.drop_column("overlap_policy")
        batch_op.drop_column("catchup_window_seconds")
