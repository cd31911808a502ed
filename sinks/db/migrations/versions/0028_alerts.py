"""Alerts: alert_rules, alerts (one unresolved per rule and subject), alert_items, alert_notifications; the
partial indexes of failures by the time they ended (webhook_executions, scheduled_event_runs, table_writes)
and the last failure of a table's automatic maintenance (table_maintenance.failed_at, last_error)

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

FAILED_ONLY = "status = 'FAILED'"
RUN_FAILED_ONLY = "status IN ('FAILED', 'MISSED')"
UNRESOLVED = "state <> 'RESOLVED'"


def _company_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["company_id"], ["companies.id"], name=op.f(f"fk_{table}_company_id_companies"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "alert_rules",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("condition_type", sa.String(length=32), nullable=False),
        sa.Column("condition_json", sa.Text(), nullable=False),
        sa.Column("subject_id", sa.String(length=100), nullable=True),
        sa.Column("resolve_after_seconds", sa.Integer(), nullable=False),
        sa.Column("notify_resource_id", sa.String(length=32), nullable=True),
        sa.Column("sealed_secret", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("checked_until", sa.DateTime(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        _company_fk("alert_rules"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alert_rules")),
    )
    op.create_index("ix_alert_rules_company_id", "alert_rules", ["company_id"], unique=False)
    op.create_index("ix_alert_rules_enabled", "alert_rules", ["enabled", "id"], unique=False)
    op.create_table(
        "alerts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("rule_id", sa.String(length=32), nullable=False),
        sa.Column("condition_type", sa.String(length=32), nullable=False),
        sa.Column("subject_kind", sa.String(length=16), nullable=False),
        sa.Column("subject_id", sa.String(length=100), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("item_count", sa.BigInteger(), nullable=False),
        sa.Column("first_item_at", sa.DateTime(), nullable=True),
        sa.Column("last_item_at", sa.DateTime(), nullable=True),
        sa.Column("counted_until", sa.DateTime(), nullable=False),
        sa.Column("clear_since", sa.DateTime(), nullable=True),
        sa.Column("opened_at", sa.DateTime(), nullable=False),
        sa.Column("acknowledged_at", sa.DateTime(), nullable=True),
        sa.Column("resolved_at", sa.DateTime(), nullable=True),
        sa.Column("resolved_by", sa.String(length=8), nullable=True),
        _company_fk("alerts"),
        sa.ForeignKeyConstraint(
            ["rule_id"], ["alert_rules.id"], name=op.f("fk_alerts_rule_id_alert_rules"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alerts")),
    )
    op.create_index(
        "ux_alerts_unresolved",
        "alerts",
        ["rule_id", "subject_id"],
        unique=True,
        sqlite_where=sa.text(UNRESOLVED),
        postgresql_where=sa.text(UNRESOLVED),
    )
    op.create_index("ix_alerts_rule_subject", "alerts", ["rule_id", "subject_id", "opened_at"], unique=False)
    op.create_index("ix_alerts_company_opened", "alerts", ["company_id", "opened_at", "id"], unique=False)
    op.create_table(
        "alert_items",
        sa.Column("alert_id", sa.String(length=32), nullable=False),
        sa.Column("item_id", sa.String(length=100), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["alert_id"], ["alerts.id"], name=op.f("fk_alert_items_alert_id_alerts"), ondelete="CASCADE"
        ),
        _company_fk("alert_items"),
        sa.PrimaryKeyConstraint("alert_id", "item_id", name=op.f("pk_alert_items")),
    )
    op.create_index("ix_alert_items_company_id", "alert_items", ["company_id"], unique=False)
    op.create_table(
        "alert_notifications",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("alert_id", sa.String(length=32), nullable=False),
        sa.Column("rule_id", sa.String(length=32), nullable=False),
        sa.Column("alert_state", sa.String(length=16), nullable=False),
        sa.Column("resource_id", sa.String(length=32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.DateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        _company_fk("alert_notifications"),
        sa.ForeignKeyConstraint(
            ["alert_id"],
            ["alerts.id"],
            name=op.f("fk_alert_notifications_alert_id_alerts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["rule_id"],
            ["alert_rules.id"],
            name=op.f("fk_alert_notifications_rule_id_alert_rules"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alert_notifications")),
        sa.UniqueConstraint("alert_id", "alert_state", name="uq_alert_notifications_alert_state"),
    )
    op.create_index("ix_alert_notifications_company_id", "alert_notifications", ["company_id"], unique=False)
    op.create_index("ix_alert_notifications_rule_id", "alert_notifications", ["rule_id"], unique=False)
    op.create_index("ix_alert_notifications_due", "alert_notifications", ["status", "next_at"], unique=False)
    op.create_index(
        "ix_webhook_executions_failed",
        "webhook_executions",
        ["company_id", "ended_at", "webhook_id"],
        unique=False,
        sqlite_where=sa.text(FAILED_ONLY),
        postgresql_where=sa.text(FAILED_ONLY),
    )
    op.create_index(
        "ix_scheduled_event_runs_failed",
        "scheduled_event_runs",
        ["company_id", "ended_at"],
        unique=False,
        sqlite_where=sa.text(RUN_FAILED_ONLY),
        postgresql_where=sa.text(RUN_FAILED_ONLY),
    )
    op.create_index(
        "ix_table_writes_failed",
        "table_writes",
        ["company_id", "committed_at"],
        unique=False,
        sqlite_where=sa.text(FAILED_ONLY),
        postgresql_where=sa.text(FAILED_ONLY),
    )
    with op.batch_alter_table("table_maintenance", schema=None) as batch_op:
        batch_op.add_column(sa.Column("failed_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("last_error", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("table_maintenance", schema=None) as batch_op:
        batch_op.drop_column("last_error")
        batch_op.drop_column("failed_at")
    op.drop_index("ix_table_writes_failed", table_name="table_writes")
    op.drop_index("ix_scheduled_event_runs_failed", table_name="scheduled_event_runs")
    op.drop_index("ix_webhook_executions_failed", table_name="webhook_executions")
    op.drop_table("alert_notifications")
    op.drop_table("alert_items")
    op.drop_table("alerts")
    op.drop_table("alert_rules")
