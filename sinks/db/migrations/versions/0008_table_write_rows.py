"""table_writes.payload_rows: accepted append rows as Arrow IPC

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24

Appends accepted before this revision keep their rows as JSON in ``payload_json``; the table writer still
reads that form, so a write pending across the upgrade is committed as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("table_writes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("payload_rows", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    # Older code reads only payload_json: dropping the column would lose every append still waiting.
    pending = op.get_bind().scalar(
        sa.text("SELECT count(*) FROM table_writes WHERE status = 'PENDING' AND payload_rows IS NOT NULL")
    )
    if pending:
        raise RuntimeError(
            f"{pending} accepted appends are still waiting for the table writer; let it commit them "
            "(status COMMITTED or FAILED) before downgrading"
        )
    with op.batch_alter_table("table_writes", schema=None) as batch_op:
        batch_op.drop_column("payload_rows")
