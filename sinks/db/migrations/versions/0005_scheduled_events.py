"""scheduled events

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scheduled_events",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("spec_json", sa.Text(), nullable=False),
        sa.Column("action_type", sa.String(length=16), nullable=False),
        sa.Column("config_json", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("anchor_at", sa.DateTime(), nullable=False),
        sa.Column("next_fire_at", sa.DateTime(), nullable=True),
        sa.Column("last_fired_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_scheduled_events_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_scheduled_events_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scheduled_events")),
    )
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_scheduled_events_company_id"), ["company_id"], unique=False)
        batch_op.create_index(
            "ix_scheduled_events_due", ["next_fire_at", "enabled", "deleted_at"], unique=False
        )

    op.create_table(
        "scheduled_event_runs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("scheduled_for", sa.DateTime(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("action_type", sa.String(length=16), nullable=False),
        sa.Column("queued_at", sa.DateTime(), nullable=False),
        sa.Column("dispatched_at", sa.DateTime(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("response_json", sa.Text(), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_scheduled_event_runs_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["scheduled_events.id"],
            name=op.f("fk_scheduled_event_runs_event_id_scheduled_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scheduled_event_runs")),
        sa.UniqueConstraint("event_id", "scheduled_for", name="uq_scheduled_event_runs_event_time"),
    )
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_scheduled_event_runs_history", ["company_id", "event_id", "scheduled_for"], unique=False
        )
        batch_op.create_index("ix_scheduled_event_runs_pending", ["status", "dispatched_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("scheduled_event_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_scheduled_event_runs_pending")
        batch_op.drop_index("ix_scheduled_event_runs_history")

    op.drop_table("scheduled_event_runs")
    with op.batch_alter_table("scheduled_events", schema=None) as batch_op:
        batch_op.drop_index("ix_scheduled_events_due")
        batch_op.drop_index(batch_op.f("ix_scheduled_events_company_id"))

    op.drop_table("scheduled_events")
