"""custom webhooks

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "webhooks",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("config_json", sa.Text(), nullable=False),
        sa.Column("is_enabled", sa.Boolean(), nullable=False),
        sa.Column("sharing_level", sa.String(length=20), nullable=False),
        sa.Column("company_permission_level", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhooks_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_webhooks_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhooks")),
    )
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.create_index("ix_webhooks_company_owner", ["company_id", "owner_id"], unique=False)

    op.create_table(
        "webhook_execution_counts",
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_execution_counts_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("webhook_id", "status", name=op.f("pk_webhook_execution_counts")),
    )
    op.create_table(
        "webhook_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("secret_digest", sa.String(length=64), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhook_keys_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_keys_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_keys")),
        sa.UniqueConstraint("webhook_id", name=op.f("uq_webhook_keys_webhook_id")),
    )
    with op.batch_alter_table("webhook_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_keys_company_id"), ["company_id"], unique=False)

    op.create_table(
        "webhook_payloads",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("request_payload", sa.Text(), nullable=False),
        sa.Column("request_headers", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhook_payloads_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_payloads_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_payloads")),
    )
    with op.batch_alter_table("webhook_payloads", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_payloads_company_id"), ["company_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_payloads_webhook_id"), ["webhook_id"], unique=False)

    op.create_table(
        "webhook_shares",
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("access_level", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhook_shares_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_webhook_shares_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_shares_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("webhook_id", "user_id", name=op.f("pk_webhook_shares")),
    )
    with op.batch_alter_table("webhook_shares", schema=None) as batch_op:
        batch_op.create_index("ix_webhook_shares_company_user", ["company_id", "user_id"], unique=False)

    op.create_table(
        "webhook_executions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("execution_id", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("payload_id", sa.String(length=32), nullable=False),
        sa.Column("attempt_number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("resource_type", sa.String(length=16), nullable=True),
        sa.Column("resource_id", sa.String(length=100), nullable=True),
        sa.Column("queued_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("webhook_name", sa.String(length=200), nullable=False),
        sa.Column("http_method", sa.String(length=10), nullable=False),
        sa.Column("source_ip", sa.String(length=64), nullable=True),
        sa.Column("transform_type", sa.String(length=16), nullable=False),
        sa.Column("transformed_variables", sa.Text(), nullable=True),
        sa.Column("transform_error", sa.Text(), nullable=True),
        sa.Column("resource_request_json", sa.Text(), nullable=True),
        sa.Column("resource_response_json", sa.Text(), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_webhook_executions_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["payload_id"],
            ["webhook_payloads.id"],
            name=op.f("fk_webhook_executions_payload_id_webhook_payloads"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_executions_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_executions")),
    )
    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_executions_execution", ["execution_id", "attempt_number"], unique=False
        )
        batch_op.create_index(
            "ix_webhook_executions_history", ["company_id", "webhook_id", "queued_at", "id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_webhook_executions_payload_id"), ["payload_id"], unique=False)
        batch_op.create_index("ix_webhook_executions_pending", ["status", "queued_at"], unique=False)
        batch_op.create_index(
            "ix_webhook_executions_status_history",
            ["company_id", "webhook_id", "status", "queued_at", "id"],
            unique=False,
        )


def downgrade() -> None:

    with op.batch_alter_table("webhook_executions", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_executions_status_history")
        batch_op.drop_index("ix_webhook_executions_pending")
        batch_op.drop_index(batch_op.f("ix_webhook_executions_payload_id"))
        batch_op.drop_index("ix_webhook_executions_history")
        batch_op.drop_index("ix_webhook_executions_execution")

    op.drop_table("webhook_executions")
    with op.batch_alter_table("webhook_shares", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_shares_company_user")

    op.drop_table("webhook_shares")
    with op.batch_alter_table("webhook_payloads", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_payloads_webhook_id"))
        batch_op.drop_index(batch_op.f("ix_webhook_payloads_company_id"))

    op.drop_table("webhook_payloads")
    with op.batch_alter_table("webhook_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_keys_company_id"))

    op.drop_table("webhook_keys")
    op.drop_table("webhook_execution_counts")
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.drop_index("ix_webhooks_company_owner")

    op.drop_table("webhooks")
