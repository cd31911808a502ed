"""One company's quota checks and the writes they allow, serialised: a check and its write in one transaction
under this lock never interleave with another's of the same company."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from sinks.db import write_lock
from sinks.db.models import Company


def lock_company(session: Session, company_id: str) -> None:
    """SQLite's write lock (it has one for the whole file), or the company's row ``FOR UPDATE`` on
    PostgreSQL; call it first in the transaction."""
    write_lock.take(session)
    session.execute(select(Company.id).where(Company.id == company_id).with_for_update())
