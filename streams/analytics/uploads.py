"""The uploads area of the worker: incomplete uploads expire.

The leader worker sweeps every minute (more often when uploads expire within minutes): an upload still
UPLOADING ``SVC_UPLOAD_EXPIRY_SECONDS`` after it started is moved to EXPIRED (a compare-and-set, so a
completion or an abort at the same moment wins or loses whole), which frees its company's quota, and its
parts are deleted from the object store. An ended upload whose parts could not be deleted (the store
failed, or an abort's delete did) is tried again at the next sweep until it succeeds.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import faust
import mode
from sqlalchemy.orm import Session, sessionmaker

from schemas.settings import Settings
from sinks.db.analytics import uploads
from sinks.db.engine import make_engine, make_sessions
from sinks.objectstore import ObjectStore, object_store

log = logging.getLogger(__name__)
SWEEP_SECONDS = 60.0
# Uploads handled per pass; a larger backlog is worked off over the following sweeps.
BATCH = 500


def sweep_interval(expiry_seconds: float) -> float:
    """Every ``SWEEP_SECONDS``, or a quarter of the lifetime when that is shorter (at least a second), so an
    upload outlives its expiry by at most that much."""
    return max(1.0, min(SWEEP_SECONDS, expiry_seconds / 4))


@dataclass(frozen=True)
class Swept:
    expired: int
    cleaned: int
    failed: int


def sweep_expired(
    sessions: sessionmaker[Session],
    store: ObjectStore,
    *,
    now: datetime,
    expiry_seconds: float,
    batch: int = BATCH,
) -> Swept:
    """One pass: expire the uploads past their lifetime, then delete the parts of every ended upload whose
    parts may still be stored. Blocking (DB and store I/O): run it in a thread."""
    cutoff = now - timedelta(seconds=expiry_seconds)
    with sessions() as session:
        due = uploads.past_expiry(session, cutoff, batch)
    expired = 0
    for company_id, upload_id in due:
        with sessions.begin() as session:
            if uploads.end(session, company_id, upload_id, uploads.UploadState.EXPIRED, now):
                expired += 1
    with sessions() as session:
        ended = uploads.uncleaned(session, batch)
    cleaned = failed = 0
    for upload in ended:
        try:
            store.discard_multipart(upload.key, upload.store_upload_id)
        except Exception:
            failed += 1
            log.warning(
                "deleting an ended upload's parts failed", extra={"upload_id": upload.id}, exc_info=True
            )
            continue
        with sessions.begin() as session:
            uploads.mark_cleaned(session, upload.company_id, upload.id, now)
        cleaned += 1
    if expired or cleaned or failed:
        log.info("upload sweep", extra={"expired": expired, "cleaned": cleaned, "failed": failed})
    return Swept(expired, cleaned, failed)


class UploadSweeper(mode.Service):
    """The DB engine and object store of the sweep, started and stopped with the Faust app."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.engine = make_engine(settings.resolved_database_url)
        self.sessions = make_sessions(self.engine)
        self.store = object_store(settings)

    async def on_stop(self) -> None:
        self.engine.dispose()

    async def sweep(self) -> Swept:
        return await asyncio.to_thread(
            sweep_expired,
            self.sessions,
            self.store,
            now=datetime.now(UTC),
            expiry_seconds=self.settings.upload_expiry_seconds,
        )


def register(app: faust.App, settings: Settings) -> None:
    sweeper = UploadSweeper(settings)
    app.service(sweeper)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.timer(interval=sweep_interval(settings.upload_expiry_seconds), on_leader=True)  # type: ignore[untyped-decorator]
    async def sweep_expired_uploads() -> None:
        try:
            await sweeper.sweep()
        except Exception:
            log.exception("the upload sweep failed; the next one tries again")
