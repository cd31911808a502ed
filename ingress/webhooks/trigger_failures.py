"""The trigger's answers when queuing a delivery fails, in the interface's shape: a 500 with
``ExecuteWebhookResponse`` (``success`` false, ``message``, ``executionId``, ``webhookId``), never the edge's
generic 500.

A failure that means the metadata database cannot be reached, or that the storage is full (or a NUL the
database refuses) is not answered here: it is raised on to ``ingress.errors.DatabaseOutage``, which answers
503 with ``Retry-After`` (400 for the NUL). That is right only while nothing is recorded, so it applies to the
write of the QUEUED entry alone; a failure after that write is answered here with the ids, whatever its cause.
A large body the object store did not take is answered here too, 503 with ``Retry-After``: nothing was
recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from ingress.errors import (
    STORAGE_FULL_RETRY_AFTER_SECONDS,
    STORAGE_RETRY_AFTER_SECONDS,
    database_unavailable,
    full_sightings,
    nul_in_text,
)
from schemas.deliveries import ExecuteWebhookResponse
from schemas.records import DeliveryTask
from sinks.db.availability import describe
from sinks.db.webhooks import deliveries
from sinks.exceptions import BrokerUnavailable
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.storage_full import full

log = logging.getLogger(__name__)

NOT_RECORDED = "The delivery could not be recorded; nothing was queued. Retry later"
NOT_QUEUED = "The delivery could not be queued; retry later"
# The entry stays QUEUED and the worker's reconciler sends what the database says is pending, so the delivery
# may still run: a caller that sends it again at once may get it twice.
MAY_STILL_RUN = (
    "The delivery was recorded but could not be queued, and may still be delivered: "
    "check its executionId in the execution history before sending it again"
)
INTERNAL_ERROR = "Internal error while handling the delivery; retry later"

Commit = Callable[[Callable[[Session], Any]], Awaitable[Any]]


def answer(status: int, message: str, *, execution_id: str | None, webhook_id: str | None) -> JSONResponse:
    response = ExecuteWebhookResponse(
        success=False, message=message, execution_id=execution_id, webhook_id=webhook_id, errors=[message]
    )
    return JSONResponse(response.model_dump(by_alias=True), status_code=status)


def outage(exc: BaseException) -> bool:
    """Raised on to ``DatabaseOutage`` (503 with Retry-After, or 400 for a NUL) rather than answered here."""
    return database_unavailable(exc) or nul_in_text(exc)


def body_not_stored(exc: StorageUnavailable, *, webhook_id: str) -> JSONResponse:
    """The object store did not take a large body (``ingress/webhooks/trigger_recording.py``): nothing is
    recorded, so the caller sends it again later."""
    message = f"{exc}; nothing was recorded, retry after the time in Retry-After"
    response = answer(503, message, execution_id=None, webhook_id=webhook_id)
    wait = STORAGE_RETRY_AFTER_SECONDS
    if full(exc):  # "The object storage is full; ...": as long a wait as any answer of a full storage
        full_sightings.saw()
        wait = STORAGE_FULL_RETRY_AFTER_SECONDS
    response.headers["Retry-After"] = str(wait)
    return response


def not_recorded(exc: Exception, *, execution_id: str, webhook_id: str) -> JSONResponse:
    """The QUEUED entry's write failed for a reason other than an outage (a statement the database refused):
    its transaction rolled back, so there is no history entry; the executionId is the one in the log line."""
    log.error(
        "delivery not recorded",
        extra={"execution_id": execution_id, "webhook_id": webhook_id, "error": describe(exc)},
    )
    return answer(500, NOT_RECORDED, execution_id=execution_id, webhook_id=webhook_id)


async def not_queued(commit: Commit, task: DeliveryTask, exc: Exception) -> JSONResponse:
    """The entry is recorded but its record was not produced: the entry is marked FAILED (so the reconciler
    does not send what the caller was told failed) and the caller gets the ids."""
    ids = {"execution_id": task.execution_id, "webhook_id": task.webhook_id}
    if isinstance(exc, BrokerUnavailable):
        reason = f"{NOT_QUEUED}: {exc}"
    else:
        log.error("delivery not queued", extra={**ids, "error": describe(exc)})
        reason = f"{NOT_QUEUED}: internal error"
    try:
        await commit(
            lambda session: deliveries.mark_not_queued(session, task.entry_id, reason, datetime.now(UTC))
        )
    except Exception as marking:  # an outage or a refused statement: the entry stays QUEUED
        log.error("delivery not queued and not marked failed", extra={**ids, "error": describe(marking)})
        return answer(500, MAY_STILL_RUN, **ids)
    return answer(500, NOT_QUEUED, **ids)


def internal_error(exc: Exception, path: str) -> JSONResponse:
    """Anything else the trigger raised (an unreadable stored row, say): the interface's 500 body, not the
    edge's."""
    log.error("trigger failed", extra={"path": path, "error": describe(exc)}, exc_info=exc)
    return answer(500, INTERNAL_ERROR, execution_id=None, webhook_id=None)
