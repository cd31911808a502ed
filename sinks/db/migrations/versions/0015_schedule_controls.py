"""scheduled_events.start_date, end_date, paused_until, action_after_completion; scheduled_event_runs.manual

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Events from before this revision have no window and no pause (NULL), keep today's NONE, and every
    # run they have is a fire of the schedule (manual false).
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("start_date", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("end_date", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("paused_until", sa.DateTime(), nullable=True))
        batch_op.add_column(
            sa.Column("action_after_completion", sa.String(length=8), nullable=False, server_default="NONE")
        )
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("manual", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.drop_column("manual")
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.drop_column("action_after_completion")
        batch_op.drop_column("paused_until")
        batch_op.drop_column("end_date")
        batch_op.drop_column("start_date")
