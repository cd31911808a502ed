"""One company's quota checks and the writes they allow, serialised: a check and its write in one transaction
under this lock never interleave with another's of the same company."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from sinks.db import write_lock
from sinks.db.models import Company


def lock_company(session: Session, company_id: str) -> None:
    """SQLite's write lock (it has one for the whole file), or the company's row ``FOR NO KEY UPDATE`` on
    PostgreSQL; call it first in the transaction. NO KEY: two lockers still wait for each other, but rows
    that only reference the company (a job, the day's scan counter) are inserted meanwhile; with FOR UPDATE
    a preview's charge and a group commit counting a query waited on each other in a cycle."""
    write_lock.take(session)
    session.execute(select(Company.id).where(Company.id == company_id).with_for_update(key_share=True))
