"""Companies' own retention values (table ``company_retention``) and the retention in force for each."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.retention import Retention
from sinks.db.models import Company, CompanyRetention

FIELDS = ("history_seconds", "runs_seconds", "jobs_seconds")


def of_company(session: Session, company_id: str, service: Retention) -> Retention:
    row = session.get(CompanyRetention, company_id)
    if row is None:
        return service
    return service.overridden(row.history_seconds, row.runs_seconds, row.jobs_seconds)


def update(session: Session, company_id: str, values: Mapping[str, int | None]) -> None:
    """Set the named fields (None: back to the service's value); the others keep what they were."""
    row = session.get(CompanyRetention, company_id)
    if row is None:
        row = CompanyRetention(company_id=company_id)
        session.add(row)
    for name, value in values.items():
        if name not in FIELDS:
            raise ValueError(f"no retention field {name!r}")
        setattr(row, name, value)
    row.updated_at = datetime.now(UTC)
    session.flush()


def every_company(session: Session, service: Retention) -> Iterator[tuple[str, Retention]]:
    """Each company with the retention in force for it, in company order."""
    rows = session.execute(
        select(
            Company.id,
            CompanyRetention.history_seconds,
            CompanyRetention.runs_seconds,
            CompanyRetention.jobs_seconds,
        )
        .outerjoin(CompanyRetention, CompanyRetention.company_id == Company.id)
        .order_by(Company.id)
    )
    for company_id, history, runs, jobs in rows:
        yield company_id, service.overridden(history, runs, jobs)
