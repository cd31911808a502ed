"""The company's upload quota as the intake applies it: open uploads at initiation, bytes as parts arrive;
and the answers and clean-up of uploads that ended without completing (aborted or expired).

A part's bytes are reserved before they are written: the whole declared ``Content-Length`` at once (so an
oversized part is refused before its body is read), or, for a body without one, in steps as it streams in. A
reservation and the check against the quota are one transaction under the company's lock
(``sinks.db.analytics.uploads.reserve``), so concurrent parts never take more than the quota between them.
Once the part is stored the upload holds what the store measures, and the reservation ends.
"""

from __future__ import annotations

import io
import logging
import math
from datetime import UTC, datetime
from typing import Any

from ingress.deps import Sessions
from ingress.errors import ApiError
from schemas.settings import Settings
from sinks.db.analytics import uploads
from sinks.db.models import Upload
from sinks.objectstore import ObjectStore

log = logging.getLogger(__name__)

# Without a Content-Length a part reserves quota in steps of this size as its body arrives.
RESERVE_STEP_BYTES = 8 * 1024 * 1024
# Retry-After when no upload of the company will expire to free its quota (all are being completed).
DEFAULT_RETRY_SECONDS = 60
ABORT_PATH = "/clients/svcdb-intake/multipart-abort"


def retry_after(used: uploads.Usage, expiry_seconds: int, now: datetime) -> int:
    """Seconds until the company's oldest upload still taking parts expires and frees its share."""
    if used.oldest is None:
        return DEFAULT_RETRY_SECONDS
    left = (used.oldest - now).total_seconds() + expiry_seconds
    return max(1, math.ceil(left))


def quota_error(settings: Settings, used: uploads.Usage, message: str) -> ApiError:
    expiry = settings.upload_expiry_seconds
    hint = (
        f"Complete the company's unfinished uploads or abort them ({ABORT_PATH}); "
        f"an incomplete upload expires {expiry} s after it starts"
    )
    wait = retry_after(used, expiry, datetime.now(UTC))
    return ApiError(
        429,
        message,
        headers={"Retry-After": str(wait)},
        body={"errorCode": "QUOTA", "errors": [message], "hint": hint},
    )


def too_many_open(settings: Settings, used: uploads.Usage) -> ApiError:
    limit = settings.upload_max_open
    return quota_error(
        settings, used, f"The company has {used.open_uploads} incomplete uploads, the plan's limit of {limit}"
    )


def over_bytes(settings: Settings, used: uploads.Usage) -> ApiError:
    quota = settings.upload_quota_bytes
    return quota_error(
        settings,
        used,
        f"The company's incomplete uploads hold {used.held_bytes} bytes; this part would pass the plan's "
        f"upload quota of {quota} bytes",
    )


def gone(upload: Upload | str, state: str | None) -> ApiError:
    """410 for an upload that ended without completing; its parts are deleted."""
    upload_id = upload if isinstance(upload, str) else upload.id
    if state == uploads.UploadState.EXPIRED.value:
        return ApiError(
            410,
            f"Upload {upload_id} expired before it was completed and its parts were deleted; "
            "start a new upload",
        )
    return ApiError(410, f"Upload {upload_id} was aborted and its parts were deleted; start a new upload")


def not_open(upload_id: str, state: str | None) -> ApiError:
    if state is None:
        return ApiError(404, f"Upload {upload_id} not found")
    if state in uploads.ENDED:
        return gone(upload_id, state)
    return ApiError(409, f"Upload {upload_id} is completed or being completed; it takes no more parts")


class PartMeter:
    """The quota a part holds while it is received; call from a worker thread (it writes to the DB)."""

    def __init__(self, sessions: Sessions, settings: Settings, store: ObjectStore, upload: Upload) -> None:
        self._sessions, self._settings, self._store = sessions, settings, store
        self._upload = upload
        self.reserved = 0

    def take(self, want: int, at_least: int) -> None:
        try:
            with self._sessions.begin() as session:
                granted = uploads.reserve(
                    session,
                    self._upload.company_id,
                    self._upload.id,
                    want=want,
                    at_least=at_least,
                    quota=self._settings.upload_quota_bytes,
                )
        except uploads.QuotaExceeded as error:
            raise over_bytes(self._settings, error.usage) from error
        except uploads.NotOpen as error:
            raise not_open(self._upload.id, error.state) from error
        self.reserved += granted

    def release(self) -> None:
        if self.reserved:
            with self._sessions.begin() as session:
                uploads.release(session, self._upload.company_id, self._upload.id, self.reserved)
            self.reserved = 0

    def settle(self) -> str | None:
        """The upload now holds what the store has of it; answers its state."""
        upload, store = self._upload, self._store
        with self._sessions.begin() as session:
            state = uploads.settle(
                session,
                upload.company_id,
                upload.id,
                reserved=self.reserved,
                measure=lambda: store.multipart_bytes(upload.key, upload.store_upload_id),
            )
        self.reserved = 0
        return state


class MeteredBody(io.RawIOBase):
    """A part's body that reserves quota for its bytes before it hands them on."""

    def __init__(self, body: Any, meter: PartMeter) -> None:
        super().__init__()
        self._body = body
        self._meter = meter
        self.received = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._body.read(size)
        self.received += len(data)
        missing = self.received - self._meter.reserved
        if missing > 0:
            self._meter.take(max(missing, RESERVE_STEP_BYTES), missing)
        return data

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def state_of(sessions: Sessions, upload: Upload) -> str | None:
    with sessions() as session:
        current = uploads.get(session, upload.company_id, upload.id)
        return None if current is None else current.state


def discard(sessions: Sessions, store: ObjectStore, upload: Upload) -> None:
    """Deletes an ended upload's parts; a failure is left to the worker's sweep, which tries again."""
    try:
        store.discard_multipart(upload.key, upload.store_upload_id)
    except Exception:
        log.warning("deleting an upload's parts failed", extra={"upload_id": upload.id}, exc_info=True)
        return
    with sessions.begin() as session:
        uploads.mark_cleaned(session, upload.company_id, upload.id, datetime.now(UTC))
