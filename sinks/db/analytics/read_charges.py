"""Bytes of table data read by describe (with statistics) and preview, per company and UTC day.

They share the daily scan allowance with the company's query jobs: ``sinks.db.analytics.jobs.scanned_since``
adds them to the queries' ``bytes_scanned``, and a charge here is checked against that same sum.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sinks.db.analytics import jobs, query_scans
from sinks.db.company_lock import lock_company
from sinks.db.models import ReadCharge


class AllowanceExceeded(Exception):
    """The read would pass the company's daily scan allowance; ``remaining`` is what is left of it."""

    def __init__(self, remaining: int) -> None:
        super().__init__("daily scan allowance exceeded")
        self.remaining = remaining


def midnight(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def charged_since(session: Session, company_id: str, since: datetime) -> int:
    total = session.scalar(
        select(func.coalesce(func.sum(ReadCharge.bytes_read), 0)).where(
            ReadCharge.company_id == company_id, ReadCharge.day >= since.date()
        )
    )
    return int(total or 0)


def charge(session: Session, company_id: str, size: int, *, now: datetime, allowance: int) -> int:
    """Counts ``size`` bytes read today (``now`` in UTC) when they fit in what is left of the allowance;
    answers what is left after them. Raises :class:`AllowanceExceeded` (nothing counted). Checked and
    counted under the company's lock, so two reads never both take the allowance's last bytes."""
    lock_company(session, company_id)
    remaining = allowance - jobs.scanned_since(session, company_id, midnight(now))
    if size > remaining:
        raise AllowanceExceeded(max(0, remaining))
    if size <= 0:
        return remaining
    query_scans.add_read(session, company_id, now.date(), size)
    return remaining - size
