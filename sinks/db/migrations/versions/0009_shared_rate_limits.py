"""Shared rate-limit and failed-authentication counters: rate_counters

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25

One row per counted thing and window; every ingress process adds its increments to it in the background
(sinks/db/counters.py). Rows of ended windows are deleted by the ingress, so downgrading loses nothing
that outlives a day.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_counters",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("window_start", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("window_end", sa.BigInteger(), nullable=False),
        sa.Column("hits", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", "window_start", name=op.f("pk_rate_counters")),
    )
    with op.batch_alter_table("rate_counters", schema=None) as batch_op:
        batch_op.create_index("ix_rate_counters_window_end", ["window_end"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("rate_counters", schema=None) as batch_op:
        batch_op.drop_index("ix_rate_counters_window_end")
    op.drop_table("rate_counters")
