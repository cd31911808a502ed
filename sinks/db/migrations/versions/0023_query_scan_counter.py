"""read_charges.query_bytes: the bytes a company's query jobs of the day are estimated to scan, one counter
per company and UTC day instead of a sum over the day's jobs on every query

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05

The counter of today (UTC, at the time of the upgrade) starts from the sum of today's query jobs, so the
allowance keeps counting what was already scanned today; earlier days no longer count against anything.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

_JOBS = sa.table(
    "jobs",
    sa.column("company_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("bytes_scanned", sa.BigInteger()),
    sa.column("created_at", sa.DateTime()),
)
_CHARGES = sa.table(
    "read_charges",
    sa.column("company_id", sa.String()),
    sa.column("day", sa.Date()),
    sa.column("bytes_read", sa.BigInteger()),
    sa.column("query_bytes", sa.BigInteger()),
)


def upgrade() -> None:
    with op.batch_alter_table("read_charges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("query_bytes", sa.BigInteger(), nullable=False, server_default="0"))
    bind = op.get_bind()
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    today = midnight.date()
    sums = bind.execute(
        sa.select(_JOBS.c.company_id, sa.func.sum(_JOBS.c.bytes_scanned))
        .where(_JOBS.c.kind == "QUERY", _JOBS.c.created_at >= midnight)
        .group_by(_JOBS.c.company_id)
    ).all()
    for company_id, total in sums:
        if not total:
            continue
        moved = bind.execute(
            sa.update(_CHARGES)
            .where(_CHARGES.c.company_id == company_id, _CHARGES.c.day == today)
            .values(query_bytes=int(total))
        )
        if not moved.rowcount:
            bind.execute(
                sa.insert(_CHARGES).values(
                    company_id=company_id, day=today, bytes_read=0, query_bytes=int(total)
                )
            )


def downgrade() -> None:
    with op.batch_alter_table("read_charges", schema=None) as batch_op:
        batch_op.drop_column("query_bytes")
