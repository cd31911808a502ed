"""Deleting analytics records past their retention: finished query and load jobs, finished appends (their
``table_writes`` rows), ended uploads once their parts are gone, and the daily scan charges of past days.
Each statement walks an index from its oldest end, so a sweep costs what it deletes; each ``any_*`` is the
read that tells the sweep whether there is anything to delete before it takes the write lock."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import Select, delete, or_, select
from sqlalchemy.orm import Session

from schemas.jobs import JobState
from sinks.db.analytics.uploads import UploadState
from sinks.db.models import AnalyticsTable, Job, ReadCharge, TableWrite, Upload

_FINAL_JOBS = tuple(state.value for state in JobState if state.final)
_FINAL_WRITES = ("COMMITTED", "FAILED", "CANCELLED")
_ENDED_UPLOADS = (UploadState.ABORTED.value, UploadState.EXPIRED.value)
Model = type[Job] | type[TableWrite] | type[Upload]


def _deleted(session: Session, model: Model, due: Select[Any]) -> int:
    result = session.execute(
        delete(model).where(model.id.in_(due.scalar_subquery())).execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _found(session: Session, due: Select[Any]) -> bool:
    return session.scalar(due.limit(1)) is not None


def _drained(session: Session, model: Model, selections: list[Select[Any]], limit: int) -> int:
    """Up to ``limit`` rows of the selections in turn."""
    total = 0
    for due in selections:
        total += _deleted(session, model, due.limit(limit - total))
        if total >= limit:
            break
    return total


def tables_of(session: Session, company_id: str) -> list[str]:
    return list(
        session.scalars(
            select(AnalyticsTable.id)
            .where(AnalyticsTable.company_id == company_id)
            .order_by(AnalyticsTable.id)
        )
    )


def _jobs(company_id: str, cutoff: datetime) -> Select[Any]:
    return (
        select(Job.id)
        .where(
            Job.company_id == company_id,
            Job.created_at < cutoff,
            Job.state.in_(_FINAL_JOBS),
            or_(Job.finished_at.is_(None), Job.finished_at < cutoff),
        )
        .order_by(Job.created_at)
    )


def any_jobs(session: Session, company_id: str, cutoff: datetime) -> bool:
    return _found(session, _jobs(company_id, cutoff))


def delete_jobs(session: Session, company_id: str, cutoff: datetime, limit: int) -> int:
    """Up to ``limit`` of the company's finished query and load jobs created and ended before ``cutoff``."""
    return _deleted(session, Job, _jobs(company_id, cutoff).limit(limit))


def _appends(table_id: str, cutoff: datetime) -> list[Select[Any]]:
    return [
        select(TableWrite.id)
        .where(TableWrite.status == status, TableWrite.table_id == table_id, TableWrite.created_at < cutoff)
        .order_by(TableWrite.created_at)
        for status in _FINAL_WRITES
    ]


def any_appends(session: Session, table_id: str, cutoff: datetime) -> bool:
    return any(_found(session, due) for due in _appends(table_id, cutoff))


def delete_appends(session: Session, table_id: str, cutoff: datetime, limit: int) -> int:
    """Up to ``limit`` of the table's finished appends and svcdb writes accepted before ``cutoff``."""
    return _drained(session, TableWrite, _appends(table_id, cutoff), limit)


def _ended_uploads(cleaned_before: datetime) -> list[Select[Any]]:
    return [
        select(Upload.id)
        .where(Upload.state == state, Upload.cleaned_at < cleaned_before)
        .order_by(Upload.cleaned_at)
        for state in _ENDED_UPLOADS
    ]


def any_ended_uploads(session: Session, cleaned_before: datetime) -> bool:
    return any(_found(session, due) for due in _ended_uploads(cleaned_before))


def delete_ended_uploads(session: Session, cleaned_before: datetime, limit: int) -> int:
    """Up to ``limit`` aborted or expired uploads whose parts were deleted before ``cleaned_before``."""
    return _drained(session, Upload, _ended_uploads(cleaned_before), limit)


def any_read_charges(session: Session, company_id: str, before: date) -> bool:
    return _found(
        session, select(ReadCharge.day).where(ReadCharge.company_id == company_id, ReadCharge.day < before)
    )


def delete_read_charges(session: Session, company_id: str, before: date) -> int:
    """The company's scan charges of days before ``before``: only the current day's count anything."""
    result = session.execute(
        delete(ReadCharge)
        .where(ReadCharge.company_id == company_id, ReadCharge.day < before)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
