"""Destinations: a handler resource's limits (max_concurrency, max_per_second), its state across workers
(destination_states: circuit, Retry-After, rate tokens), and a delivery waiting for its destination
(webhook_executions.waiting_for, waiting_since, waited_ms, with a partial index of the waiting ones)

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("handler_resources", schema=None) as batch_op:
        batch_op.add_column(sa.Column("max_concurrency", sa.Integer(), nullable=False, server_default="16"))
        batch_op.add_column(sa.Column("max_per_second", sa.Float(), nullable=True))
    op.create_table(
        "destination_states",
        sa.Column("resource_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("since", sa.DateTime(), nullable=False),
        sa.Column("probe_at", sa.DateTime(), nullable=True),
        sa.Column("consecutive_failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.DateTime(), nullable=True),
        sa.Column("window_attempts", sa.Integer(), nullable=False),
        sa.Column("window_failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("last_error_at", sa.DateTime(), nullable=True),
        sa.Column("blocked_until", sa.DateTime(), nullable=True),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("tokens_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_destination_states_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["handler_resources.id"],
            name=op.f("fk_destination_states_resource_id_handler_resources"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("resource_id", name=op.f("pk_destination_states")),
    )
    with op.batch_alter_table("destination_states", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_destination_states_company_id"), ["company_id"], unique=False)
    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("waiting_for", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("waiting_since", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("waited_ms", sa.Integer(), nullable=True))
    op.create_index(
        "ix_webhook_executions_waiting",
        "webhook_executions",
        ["waiting_for", "queued_at"],
        unique=False,
        sqlite_where=sa.text("waiting_for IS NOT NULL"),
        postgresql_where=sa.text("waiting_for IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_webhook_executions_waiting", table_name="webhook_executions")
    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.drop_column("waited_ms")
        batch_op.drop_column("waiting_since")
        batch_op.drop_column("waiting_for")
    with op.batch_alter_table("destination_states", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_destination_states_company_id"))
    op.drop_table("destination_states")
    with op.batch_alter_table("handler_resources", schema=None) as batch_op:
        batch_op.drop_column("max_per_second")
        batch_op.drop_column("max_concurrency")
