"""Deleting analytics records past their retention: finished query and load jobs, finished appends (their
``table_writes`` rows), ended uploads once their parts are gone, and the daily scan charges of past days.
Each statement walks an index from its oldest end, so a sweep costs what it deletes."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from schemas.jobs import JobState
from sinks.db.analytics.uploads import UploadState
from sinks.db.models import AnalyticsTable, Job, ReadCharge, TableWrite, Upload

_FINAL_JOBS = tuple(state.value for state in JobState if state.final)
_FINAL_WRITES = ("COMMITTED", "FAILED", "CANCELLED")
_ENDED_UPLOADS = (UploadState.ABORTED.value, UploadState.EXPIRED.value)


def _deleted(session: Session, model: type[Job] | type[TableWrite] | type[Upload], due: object) -> int:
    result = session.execute(
        delete(model)
        .where(model.id.in_(due.scalar_subquery()))  # type: ignore[attr-defined]
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def tables_of(session: Session, company_id: str) -> list[str]:
    return list(
        session.scalars(
            select(AnalyticsTable.id)
            .where(AnalyticsTable.company_id == company_id)
            .order_by(AnalyticsTable.id)
        )
    )


def delete_jobs(session: Session, company_id: str, cutoff: datetime, limit: int) -> int:
    """Up to ``limit`` of the company's finished query and load jobs created and ended before ``cutoff``."""
    due = (
        select(Job.id)
        .where(
            Job.company_id == company_id,
            Job.created_at < cutoff,
            Job.state.in_(_FINAL_JOBS),
            or_(Job.finished_at.is_(None), Job.finished_at < cutoff),
        )
        .order_by(Job.created_at)
        .limit(limit)
    )
    return _deleted(session, Job, due)


def delete_appends(session: Session, table_id: str, cutoff: datetime, limit: int) -> int:
    """Up to ``limit`` of the table's finished appends and svcdb writes accepted before ``cutoff``."""
    total = 0
    for status in _FINAL_WRITES:
        due = (
            select(TableWrite.id)
            .where(
                TableWrite.status == status,
                TableWrite.table_id == table_id,
                TableWrite.created_at < cutoff,
            )
            .order_by(TableWrite.created_at)
            .limit(limit - total)
        )
        total += _deleted(session, TableWrite, due)
        if total >= limit:
            break
    return total


def delete_ended_uploads(session: Session, cleaned_before: datetime, limit: int) -> int:
    """Up to ``limit`` aborted or expired uploads whose parts were deleted before ``cleaned_before``."""
    total = 0
    for state in _ENDED_UPLOADS:
        due = (
            select(Upload.id)
            .where(Upload.state == state, Upload.cleaned_at < cleaned_before)
            .order_by(Upload.cleaned_at)
            .limit(limit - total)
        )
        total += _deleted(session, Upload, due)
        if total >= limit:
            break
    return total


def delete_read_charges(session: Session, company_id: str, before: date) -> int:
    """The company's scan charges of days before ``before``: only the current day's count anything."""
    result = session.execute(
        delete(ReadCharge)
        .where(ReadCharge.company_id == company_id, ReadCharge.day < before)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
