"""Console sessions: console_sessions (the digest of a browser's session token, who it acts as, when it
expires)

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "console_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("company_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False, server_default=sa.text("CURRENT_TIMESTAMP")),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["company_id"],
            ["companies.id"],
            name=op.f("fk_console_sessions_company_id_companies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_console_sessions_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["key_id"], ["api_keys.id"], name=op.f("fk_console_sessions_key_id_api_keys"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_console_sessions")),
    )
    op.create_index("ix_console_sessions_company_id", "console_sessions", ["company_id"], unique=False)
    op.create_index("ix_console_sessions_key_id", "console_sessions", ["key_id"], unique=False)
    op.create_index("ix_console_sessions_expires_at", "console_sessions", ["expires_at"], unique=False)


def downgrade() -> None:
    op.drop_table("console_sessions")
