"""Uploads in the metadata DB. Every lookup is scoped to the company; a completion is claimed with a
compare-and-set (UPLOADING → COMPLETING) so two completions of one upload never both assemble it, and an
abort or the expiry sweep ends an upload with the same compare-and-set (UPLOADING → ABORTED / EXPIRED), so
exactly one of them wins.

The company's upload quota (open uploads, bytes held in incomplete ones) is checked and taken in one
transaction that first takes the company's lock (``sinks/db/company_lock.py``): SQLite's write lock, or
the company's row ``FOR UPDATE`` on PostgreSQL. Two reservations of one company never both pass the check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ColumnElement, case, func, select, update
from sqlalchemy.orm import Session

from sinks.db.company_lock import lock_company
from sinks.db.models import Upload


class UploadState(StrEnum):
    UPLOADING = "UPLOADING"
    COMPLETING = "COMPLETING"
    COMPLETED = "COMPLETED"
    ABORTED = "ABORTED"
    EXPIRED = "EXPIRED"


INCOMPLETE = (UploadState.UPLOADING.value, UploadState.COMPLETING.value)
ENDED = (UploadState.ABORTED.value, UploadState.EXPIRED.value)


@dataclass(frozen=True)
class Usage:
    """A company's incomplete uploads: how many, the bytes they hold or are receiving, and when the oldest
    still taking parts started (it expires first)."""

    open_uploads: int
    held_bytes: int
    oldest: datetime | None


class QuotaExceeded(Exception):
    """Taking these bytes would pass the company's upload quota."""

    def __init__(self, usage: Usage) -> None:
        super().__init__("upload quota exceeded")
        self.usage = usage


class NotOpen(Exception):
    """The upload is gone or no longer takes parts; ``state`` is its state (None: no such upload)."""

    def __init__(self, state: str | None) -> None:
        super().__init__(f"upload not open ({state})")
        self.state = state


def create(
    session: Session,
    *,
    upload_id: str,
    company_id: str,
    created_by: str,
    file_name: str,
    key: str,
    s3_key: str,
    s3_uri: str,
    store_upload_id: str,
    now: datetime,
) -> Upload:
    upload = Upload(
        id=upload_id,
        company_id=company_id,
        created_by=created_by,
        file_name=file_name,
        key=key,
        s3_key=s3_key,
        s3_uri=s3_uri,
        store_upload_id=store_upload_id,
        state=UploadState.UPLOADING.value,
        created_at=now,
    )
    session.add(upload)
    session.flush()
    return upload


def get(session: Session, company_id: str, upload_id: str) -> Upload | None:
    return session.scalar(select(Upload).where(Upload.company_id == company_id, Upload.id == upload_id))


def claim_completion(session: Session, company_id: str, upload_id: str) -> bool:
    """Moves an UPLOADING upload to COMPLETING; False when another completion got there first."""
    moved = session.execute(
        update(Upload)
        .where(
            Upload.company_id == company_id,
            Upload.id == upload_id,
            Upload.state == UploadState.UPLOADING.value,
        )
        .values(state=UploadState.COMPLETING.value)
    )
    return bool(getattr(moved, "rowcount", 0))


def release_completion(session: Session, company_id: str, upload_id: str) -> None:
    """Back to UPLOADING after a refused completion, so the caller can fix the parts and complete again."""
    session.execute(
        update(Upload)
        .where(
            Upload.company_id == company_id,
            Upload.id == upload_id,
            Upload.state == UploadState.COMPLETING.value,
        )
        .values(state=UploadState.UPLOADING.value)
    )


def mark_completed(
    session: Session, company_id: str, upload_id: str, *, size_bytes: int, part_count: int, now: datetime
) -> None:
    session.execute(
        update(Upload)
        .where(Upload.company_id == company_id, Upload.id == upload_id)
        .values(
            state=UploadState.COMPLETED.value,
            size_bytes=size_bytes,
            part_count=part_count,
            completed_at=now,
            held_bytes=0,
            reserved_bytes=0,
        )
    )


def uploaded_object(session: Session, company_id: str, s3_uri: str) -> str | None:
    """The object store key of ``s3_uri`` when it is a COMPLETED upload of the company, else None."""
    return session.scalar(
        select(Upload.key).where(
            Upload.company_id == company_id,
            Upload.s3_uri == s3_uri,
            Upload.state == UploadState.COMPLETED.value,
        )
    )


# quota


def usage(session: Session, company_id: str) -> Usage:
    row = session.execute(
        select(
            func.count(),
            func.coalesce(func.sum(Upload.held_bytes + Upload.reserved_bytes), 0),
        ).where(Upload.company_id == company_id, Upload.state.in_(INCOMPLETE))
    ).one()
    oldest = session.scalar(
        select(func.min(Upload.created_at)).where(
            Upload.company_id == company_id, Upload.state == UploadState.UPLOADING.value
        )
    )
    return Usage(int(row[0]), int(row[1]), oldest)


def _state(session: Session, company_id: str, upload_id: str) -> str | None:
    return session.scalar(select(Upload.state).where(Upload.company_id == company_id, Upload.id == upload_id))


def reserve(
    session: Session, company_id: str, upload_id: str, *, want: int, at_least: int, quota: int
) -> int:
    """Takes up to ``want`` bytes (never fewer than ``at_least``) of the company's quota for a part of an
    UPLOADING upload that is being received; answers the bytes taken. Raises :class:`NotOpen`, or
    :class:`QuotaExceeded` when not even ``at_least`` fits (nothing taken)."""
    lock_company(session, company_id)
    state = _state(session, company_id, upload_id)
    if state != UploadState.UPLOADING.value:
        raise NotOpen(state)
    used = usage(session, company_id)
    granted = max(0, min(want, quota - used.held_bytes))
    if granted < at_least:
        raise QuotaExceeded(used)
    session.execute(
        update(Upload)
        .where(Upload.company_id == company_id, Upload.id == upload_id)
        .values(reserved_bytes=Upload.reserved_bytes + granted)
    )
    return granted


def release(session: Session, company_id: str, upload_id: str, size: int) -> None:
    """Gives back bytes reserved for a part that was not stored."""
    lock_company(session, company_id)
    session.execute(
        update(Upload)
        .where(Upload.company_id == company_id, Upload.id == upload_id, Upload.state.in_(INCOMPLETE))
        .values(reserved_bytes=_less_reserved(size))
    )


def settle(
    session: Session, company_id: str, upload_id: str, *, reserved: int, measure: Callable[[], int]
) -> str | None:
    """After a part was stored: the upload holds what the store now has (``measure``, taken under the
    company's lock so the last measure written is the newest), and its part's reservation ends. Answers
    the upload's state; only an UPLOADING upload is changed."""
    lock_company(session, company_id)
    state = _state(session, company_id, upload_id)
    if state != UploadState.UPLOADING.value:
        return state
    held = measure()
    session.execute(
        update(Upload)
        .where(Upload.company_id == company_id, Upload.id == upload_id)
        .values(held_bytes=held, reserved_bytes=_less_reserved(reserved))
    )
    return state


def record_held(session: Session, company_id: str, upload_id: str, held: int) -> None:
    """The bytes an UPLOADING upload's parts hold, as measured in the store (S3 parts bypass the ingress)."""
    lock_company(session, company_id)
    session.execute(
        update(Upload)
        .where(
            Upload.company_id == company_id,
            Upload.id == upload_id,
            Upload.state == UploadState.UPLOADING.value,
        )
        .values(held_bytes=held)
    )


def _less_reserved(size: int) -> ColumnElement[int]:
    return case((Upload.reserved_bytes > size, Upload.reserved_bytes - size), else_=0)


def check_open(session: Session, company_id: str, max_open: int) -> None:
    """Takes the company's lock and raises :class:`QuotaExceeded` when it already has ``max_open``
    incomplete uploads; the caller creates the new one in the same transaction."""
    lock_company(session, company_id)
    used = usage(session, company_id)
    if used.open_uploads >= max_open:
        raise QuotaExceeded(used)


# abort and expiry


def end(session: Session, company_id: str, upload_id: str, state: UploadState, now: datetime) -> bool:
    """UPLOADING → ``state`` (ABORTED or EXPIRED), freeing its quota; False when it was not UPLOADING."""
    lock_company(session, company_id)
    moved = session.execute(
        update(Upload)
        .where(
            Upload.company_id == company_id,
            Upload.id == upload_id,
            Upload.state == UploadState.UPLOADING.value,
        )
        .values(state=state.value, held_bytes=0, reserved_bytes=0, ended_at=now)
    )
    return bool(getattr(moved, "rowcount", 0))


def mark_cleaned(session: Session, company_id: str, upload_id: str, now: datetime) -> None:
    session.execute(
        update(Upload)
        .where(Upload.company_id == company_id, Upload.id == upload_id, Upload.state.in_(ENDED))
        .values(cleaned_at=now)
    )


def past_expiry(session: Session, cutoff: datetime, limit: int) -> list[tuple[str, str]]:
    """(company, upload) of UPLOADING uploads started before ``cutoff``, oldest first; for the sweep, which
    acts on every company's uploads."""
    rows = session.execute(
        select(Upload.company_id, Upload.id)
        .where(Upload.state == UploadState.UPLOADING.value, Upload.created_at < cutoff)
        .order_by(Upload.created_at)
        .limit(limit)
    ).all()
    return [(str(company), str(upload)) for company, upload in rows]


def uncleaned(session: Session, limit: int) -> list[Upload]:
    """ABORTED or EXPIRED uploads whose parts may still be in the store."""
    found = list(
        session.scalars(
            select(Upload).where(Upload.state.in_(ENDED), Upload.cleaned_at.is_(None)).limit(limit)
        )
    )
    for upload in found:
        session.expunge(upload)
    return found
