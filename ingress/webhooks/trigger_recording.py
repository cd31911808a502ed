"""What the trigger records of a request (ingress/webhooks/trigger.py): the history entry, with the
credentials among its headers and query parameters redacted and the handler it is recorded with, written by
the group commit (QUEUED, FILTERED or TRANSFORM_FAILED; sinks/db/webhooks/deliveries.py), and a body over
SVC_INLINE_BODY_BYTES put in the object store before it (sinks/webhook_bodies.py). A replay
(ingress/webhooks/replay_pipeline.py) leaves out what this redacted; both make the entry with
``ingress/webhooks/pipeline.delivery_of``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from core.signatures import secret_headers
from core.tracing import TraceContext
from core.webhooks.bodies import by_reference
from ingress.webhooks import trigger_dedup, trigger_failures
from ingress.webhooks.pipeline import Incoming, Processed, delivery_of
from ingress.webhooks.trigger_clients import TriggerClients
from ingress.webhooks.trigger_screening import FILTERED_MESSAGE, TOO_COSTLY_MESSAGE
from schemas.deliveries import DeliveryTask, FilteredWebhookResponse
from schemas.webhooks import StoredWebhookConfig
from sinks import credentials, webhook_bodies
from sinks.db.webhooks.dedup import Claim
from sinks.db.webhooks.deliveries import Delivery, TriggerTarget
from sinks.iceberg.exceptions import StorageUnavailable

REDACTED = "[REDACTED]"
# Credentials a caller may send: never stored in the history, whatever the webhook says.
ALWAYS_REDACTED = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})


def _redacted(values: dict[str, str], secret: frozenset[str] = frozenset()) -> str:
    hidden = ALWAYS_REDACTED | secret
    return json.dumps({k: REDACTED if k.lower() in hidden else v for k, v in values.items()})


def _secret_headers(config: StoredWebhookConfig) -> frozenset[str]:
    named = frozenset(name.lower() for name in config.secret_headers or ())
    return named | secret_headers((config.verification_config or {}).get("provider"))


def delivery_for(
    request: Request,
    target: TriggerTarget,
    incoming: Incoming,
    processed: Processed,
    trace: TraceContext,
) -> Delivery:
    """The history entry of one request as the trigger received it (a new execution id), with the credentials
    among its headers and query parameters redacted."""
    return delivery_of(
        target,
        processed,
        execution_id=credentials.new_id(),
        http_method=request.method,
        source_ip=request.client.host if request.client else None,
        headers_json=_redacted(incoming.headers, _secret_headers(target.webhook_config)),
        query_json=_redacted(incoming.query),
        payload=incoming.body,
        received_at=datetime.now(UTC),
        trace_parent=trace.traceparent,
    )


async def record(
    svc: TriggerClients, delivery: Delivery, claim: Claim | None, raw: bytes
) -> DeliveryTask | JSONResponse:
    """The history entry (and its deduplication key's claim), written by the group commit; the trigger's
    answer when that failed or another delivery claimed the key first.

    A body (``raw``) over SVC_INLINE_BODY_BYTES is put in the object store first, on a worker thread, and the
    entry records its reference; when nothing ends up recorded, the object is deleted again."""
    offloaded = None
    if by_reference(len(raw), svc.settings.inline_body_bytes):
        target = delivery.target
        try:
            offloaded = await run_in_threadpool(
                webhook_bodies.put, svc.store, target.company_id, target.webhook_id, raw
            )
        except StorageUnavailable as unavailable:
            return trigger_failures.body_not_stored(unavailable, webhook_id=target.webhook_id)
        delivery = replace(delivery, offloaded=offloaded)
    try:
        recorded = await svc.committer.run(trigger_dedup.recording(delivery, claim))
    except Exception as exc:
        if offloaded is not None:
            await run_in_threadpool(webhook_bodies.discard, svc.store, offloaded.ref.key)
        if trigger_failures.outage(exc):
            raise  # nothing is recorded: DatabaseOutage (ingress/errors.py) answers 503 with Retry-After
        return trigger_failures.not_recorded(
            exc, execution_id=delivery.execution_id, webhook_id=delivery.target.webhook_id
        )
    answered = trigger_dedup.answered(recorded, delivery.target)
    if offloaded is not None and isinstance(answered, JSONResponse):  # a duplicate: nothing was recorded
        await run_in_threadpool(webhook_bodies.discard, svc.store, offloaded.ref.key)
    return answered


async def record_filtered(
    svc: TriggerClients, delivery: Delivery, claim: Claim | None, raw: bytes
) -> JSONResponse:
    """A delivery the filter dropped: its FILTERED entry joins the next group commit; nothing is queued."""
    recorded = await record(svc, delivery, claim, raw)
    if isinstance(recorded, JSONResponse):
        return recorded
    message = FILTERED_MESSAGE if delivery.filter_note is None else TOO_COSTLY_MESSAGE
    answer = FilteredWebhookResponse(
        success=True,
        message=message,
        execution_id=delivery.execution_id,
        webhook_id=delivery.target.webhook_id,
    )
    return JSONResponse(answer.model_dump(by_alias=True), status_code=200)
