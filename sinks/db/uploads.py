"""Uploads in the metadata DB. Every lookup is scoped to the company; a completion is claimed with a
compare-and-set (UPLOADING → COMPLETING) so two completions of one upload never both assemble it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from sinks.db.models import Upload


class UploadState(StrEnum):
    UPLOADING = "UPLOADING"
    COMPLETING = "COMPLETING"
    COMPLETED = "COMPLETED"


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
            state=UploadState.COMPLETED.value, size_bytes=size_bytes, part_count=part_count, completed_at=now
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
