"""The public trigger: ``{base_url}/clients/custom-webhooks?resourceId=<id>``, GET/POST/PUT/PATCH/DELETE.

Authenticate (401 ``{"error": ...}`` in the spec's order) → the provider signature (401 ``Invalid
signature.``) → deduplication (a key seen within the window is a 200 ``duplicate: true``;
``ingress/webhooks/trigger_dedup.py``) → validation script → content filter (a delivery that does not match is
a FILTERED entry and a 200) → transform (synchronous; a failure is 500 and a TRANSFORM_FAILED entry), the
three steps a replay runs too (``ingress/webhooks/pipeline.py``) → a body over SVC_INLINE_BODY_BYTES into
the object store → the QUEUED entry (group commit; ``ingress/webhooks/trigger_recording.py``) → the Kafka
record (``acks=all``) → 202. The handler runs later in a worker; its outcome is only in the history. A
failure while queuing answers in ``ingress/webhooks/trigger_failures.py``'s terms: 503 with Retry-After when
nothing was recorded, the interface's 500 body otherwise.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from core import tracing
from core.webhooks.bodies import text_of
from ingress.webhooks import trigger_dedup, trigger_failures
from ingress.webhooks.deps import TriggerClientsDep
from ingress.webhooks.pipeline import Incoming, Refused, Run, process
from ingress.webhooks.trigger_auth import (
    TriggerRejected,
    check_key,
    check_lockout,
    check_target,
    presented_key,
    refusal,
    webhook_id_from,
)
from ingress.webhooks.trigger_clients import TriggerClients
from ingress.webhooks.trigger_recording import delivery_for, record, record_filtered
from ingress.webhooks.trigger_screening import screens_for, signature_refusal
from ingress.webhooks.trigger_tracing import traced
from schemas.deliveries import (
    DuplicateWebhookResponse,
    ExecuteWebhookResponse,
    FilteredWebhookResponse,
)
from schemas.webhooks import MAX_BODY_BYTES
from sinks.db.webhooks import deliveries
from sinks.db.webhooks.deliveries import TriggerTarget
from sinks.exceptions import BrokerAway
from sinks.scripting.workers import SandboxBusy
from sinks.telemetry import now_ns

router = APIRouter(tags=["webhook trigger"])

TRIGGER_PATH = "/clients/custom-webhooks"
TRIGGER_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})


def _answer(status: int, response: ExecuteWebhookResponse) -> JSONResponse:
    return JSONResponse(response.model_dump(by_alias=True), status_code=status)


def _headers(request: Request) -> dict[str, str]:
    """Header names in lower case; a repeated header's values joined with ', ' (as HTTP allows)."""
    merged: dict[str, str] = {}
    for name, value in request.headers.items():
        merged[name] = f"{merged[name]}, {value}" if name in merged else value
    return merged


def _busy(target: TriggerTarget, busy: SandboxBusy) -> JSONResponse:
    message = str(busy)
    response = _answer(
        429,
        ExecuteWebhookResponse(
            success=False, message=message, webhook_id=target.webhook_id, errors=[message]
        ),
    )
    response.headers["Retry-After"] = str(busy.retry_after)
    return response


def _authenticate(svc: TriggerClients, webhook_id: str, key: str | None) -> TriggerTarget:
    target = check_target(svc.trigger_targets.get(webhook_id, lambda found: _load_target(svc, found)))
    check_key(target, key, lambda key_id: _key_owner(svc, key_id))
    return target


# Plain connections, not ORM sessions: one read of columns each.
def _load_target(svc: TriggerClients, webhook_id: str) -> TriggerTarget | None:
    with svc.engine.connect() as connection:
        return deliveries.load_target(connection, webhook_id)


def _key_owner(svc: TriggerClients, key_id: str) -> str | None:
    with svc.engine.connect() as connection:
        return deliveries.key_owner(connection, key_id)


async def trigger_webhook(request: Request, svc: TriggerClientsDep) -> JSONResponse:
    started_ns = now_ns()
    query = dict(request.query_params)
    headers = _headers(request)
    try:
        webhook_id = webhook_id_from(query)
        key = presented_key(headers, query)
        await check_lockout(svc.auth_throttle, request, key)
        if svc.engine.dialect.name == "sqlite":
            # Two primary-key reads of a local file in WAL mode (a reader never waits for a writer): tens of
            # microseconds, less than the hop to a worker thread and back.
            target = _authenticate(svc, webhook_id, key)
        else:
            target = await run_in_threadpool(_authenticate, svc, webhook_id, key)
    except TriggerRejected as rejected:
        return refusal(svc.auth_throttle, request, rejected)

    decision = svc.webhook_limiter.hit(target.key_id or target.webhook_id, time.time())
    request.state.rate_headers = decision.headers()
    if not decision.allowed:
        response = _answer(
            429,
            ExecuteWebhookResponse(
                success=False,
                message="Rate limit exceeded",
                webhook_id=target.webhook_id,
                errors=["Rate limit exceeded"],
            ),
        )
        response.headers["Retry-After"] = str(decision.retry_after)
        return response

    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        message = f"Request body exceeds the limit of {MAX_BODY_BYTES} bytes"
        return _answer(
            413,
            ExecuteWebhookResponse(
                success=False, message=message, webhook_id=target.webhook_id, errors=[message]
            ),
        )
    body = text_of(raw)

    screens = screens_for(target, svc.masker)  # two dict lookups for a webhook with neither screen
    if screens.verification is not None:
        refused = await signature_refusal(
            screens.verification, target, request, raw, svc.settings.public_base_url
        )
        if refused is not None:
            return refused
    claim = await trigger_dedup.screen(svc, target, request, headers, raw, screens.verification)
    if isinstance(claim, JSONResponse):
        return claim  # a duplicate (200) or an unusable Idempotency-Key (400)

    incoming = Incoming(
        raw, body, headers, query, lambda: (request.headers.items(), request.query_params.multi_items())
    )
    run = Run(target, screens, target.company_id, svc.settings.jsonpath_cpu_ms)
    try:
        processed = await process(run, incoming)
    except SandboxBusy as busy:
        return _busy(target, busy)
    if isinstance(processed, Refused):
        return JSONResponse({"error": processed.message}, status_code=401)
    # The caller's trace continued (or a new one): this request is its ingress span.
    trace, caller_span = tracing.incoming(headers.get(tracing.HEADER))
    delivery = delivery_for(request, target, incoming, processed, trace)
    if delivery.filtered:
        answer = await record_filtered(svc, delivery, claim, raw)
        return traced(svc, answer, delivery, trace, caller_span, started_ns)
    transform_error, transform_ns = processed.transform_error, processed.transform_ns
    ids = {"execution_id": delivery.execution_id, "webhook_id": target.webhook_id}
    task = await record(svc, delivery, claim, raw)
    if isinstance(task, JSONResponse):
        return task
    if transform_error is not None:
        message = f"Payload transform failed: {transform_error}"
        failed = _answer(500, ExecuteWebhookResponse(success=False, message=message, errors=[message], **ids))
        return traced(svc, failed, delivery, trace, caller_span, started_ns, transform_ns)

    try:
        await svc.publisher.publish_record(task, headers=[(tracing.HEADER, trace.traceparent.encode())])
    except BrokerAway:
        pass  # the embedded broker restarts: the entry predates the new broker, whose reconcilers send it
    except Exception as exc:
        commit = trigger_dedup.releasing(svc.committer.run, claim, task.execution_id)
        return await trigger_failures.not_queued(commit, task, exc)
    queued = _answer(
        202, ExecuteWebhookResponse(success=True, message="Webhook received and queued for processing", **ids)
    )
    return traced(svc, queued, delivery, trace, caller_span, started_ns, transform_ns)


# Served by `ingress.webhooks.trigger_fast_path` ahead of the router; registered here for the OpenAPI
# document.
for _method in sorted(TRIGGER_METHODS):
    router.add_api_route(
        TRIGGER_PATH,
        trigger_webhook,
        methods=[_method],
        status_code=202,
        response_model=ExecuteWebhookResponse,
        operation_id=f"trigger_webhook_{_method.lower()}",
        summary="Deliver an event to a custom webhook",
        responses={
            200: {
                "model": FilteredWebhookResponse | DuplicateWebhookResponse,
                "description": "Recorded as FILTERED: the delivery did not match the webhook's filterConfig; "
                "or `duplicate: true`: its Idempotency-Key (or provider delivery id) was seen within the "
                "webhook's deduplication window, and executionId is the first delivery's",
            },
            400: {"model": ExecuteWebhookResponse, "description": "An unusable Idempotency-Key header"},
            401: {"description": 'Authentication failed, or `Invalid signature.`: {"error": "..."}'},
        },
    )
