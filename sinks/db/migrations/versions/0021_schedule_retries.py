"""Scheduler retries: retryPolicy and deadLetterConfig on scheduled_events; a run's retry time, earlier
attempts and owed dead-letter record on scheduled_event_runs

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03

Events from before this revision keep today's behaviour: no retry (0 attempts), the widest event age, no
dead letter. Their runs have no retry pending, no earlier attempts recorded and no dead letter owed.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("max_retry_attempts", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(
            sa.Column("max_event_age_seconds", sa.Integer(), nullable=False, server_default="86400")
        )
        batch_op.add_column(
            # A literal, not sa.false(): SQLite adds a column with an expression default only by copying
            # the table, and dropping the old scheduled_events would cascade to every run of its events.
            sa.Column("dead_letter_enabled", sa.Boolean(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("retry_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("attempts_json", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("dead_letter_at", sa.DateTime(), nullable=True))
        batch_op.create_index("ix_scheduled_event_runs_retry", ["retry_at"], unique=False)
        batch_op.create_index("ix_scheduled_event_runs_dead_letter", ["dead_letter_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_scheduled_event_runs_dead_letter")
        batch_op.drop_index("ix_scheduled_event_runs_retry")
        batch_op.drop_column("dead_letter_at")
        batch_op.drop_column("attempts_json")
        batch_op.drop_column("retry_at")
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.drop_column("dead_letter_enabled")
        batch_op.drop_column("max_event_age_seconds")
        batch_op.drop_column("max_retry_attempts")
