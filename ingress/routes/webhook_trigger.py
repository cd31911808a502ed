"""The public trigger: ``{base_url}/clients/custom-webhooks?resourceId=<id>``, GET/POST/PUT/PATCH/DELETE.

Authenticate (401 ``{"error": ...}`` in the spec's order) → the provider signature (401 ``Invalid
signature.``) → deduplication (a key seen within the window is a 200 ``duplicate: true``;
``ingress/trigger_dedup.py``) → validation script → content filter (a delivery that does not match is a
FILTERED entry and a 200; ``ingress/trigger_screening.py``) → transform (synchronous; a failure is 500 and a
TRANSFORM_FAILED entry; ``ingress/trigger_transform.py``) → the QUEUED entry (group commit;
``ingress/trigger_recording.py``) → the Kafka record (``acks=all``) → 202. The handler runs later in a worker;
its outcome is only in the history. A failure while queuing answers in ``ingress/trigger_failures.py``'s
terms: 503 with Retry-After when nothing was recorded, the interface's 500 body otherwise.
"""

from __future__ import annotations

import json
import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from core import tracing
from core.webhooks.transform import TransformError, apply_jsonpath, apply_transform, needs_sandbox
from ingress import trigger_dedup, trigger_failures
from ingress.deps import Svc
from ingress.state import Services
from ingress.trigger_auth import (
    TriggerRejected,
    check_key,
    check_lockout,
    check_target,
    presented_key,
    refusal,
    webhook_id_from,
)
from ingress.trigger_recording import delivery_for, record, record_filtered
from ingress.trigger_screening import (
    filter_decision,
    screens_for,
    signature_refusal,
)
from ingress.trigger_tracing import traced
from ingress.trigger_transform import compiled_mappings, jsonpath_in_sandbox
from schemas.deliveries import (
    DuplicateWebhookResponse,
    ExecuteWebhookResponse,
    FilteredWebhookResponse,
)
from sinks.db import deliveries
from sinks.db.deliveries import TriggerTarget
from sinks.exceptions import BrokerAway
from sinks.scripting.sandbox import ScriptError, run_validation, script_transform
from sinks.scripting.workers import SandboxBusy
from sinks.telemetry import now_ns

router = APIRouter(tags=["webhook trigger"])

TRIGGER_PATH = "/clients/custom-webhooks"
TRIGGER_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
MAX_BODY_BYTES = 10 * 1024 * 1024
# JSONPATH over a small body takes well under a millisecond: cheaper on the event loop than a thread hop.
# Scripts and large bodies go to a worker thread.
INLINE_TRANSFORM_BYTES = 16 * 1024


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


def _authenticate(svc: Services, webhook_id: str, key: str | None) -> TriggerTarget:
    target = check_target(svc.trigger_targets.get(webhook_id, lambda found: _load_target(svc, found)))
    check_key(target, key, lambda key_id: _key_owner(svc, key_id))
    return target


# Plain connections, not ORM sessions: one read of columns each.
def _load_target(svc: Services, webhook_id: str) -> TriggerTarget | None:
    with svc.engine.connect() as connection:
        return deliveries.load_target(connection, webhook_id)


def _key_owner(svc: Services, key_id: str) -> str | None:
    with svc.engine.connect() as connection:
        return deliveries.key_owner(connection, key_id)


async def trigger_webhook(request: Request, svc: Svc) -> JSONResponse:
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
    body = raw.decode("utf-8", errors="replace")

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

    validation = target.config.get("validationConfig") or {}
    if validation.get("enableValidation") and validation.get("validationScript"):
        try:
            outcome = await run_in_threadpool(
                run_validation, validation["validationScript"], headers, body, query, tenant=target.company_id
            )
        except SandboxBusy as busy:
            return _busy(target, busy)
        except ScriptError as exc:
            return JSONResponse({"error": f"Webhook validation failed: {exc}"}, status_code=401)
        if not outcome.valid:
            return JSONResponse({"error": outcome.message}, status_code=401)

    transform_config = target.config.get("payloadTransformConfig") or {}
    transform_type = str(transform_config.get("transformType") or "JSONPATH")
    # The caller's trace continued (or a new one): this request is its ingress span.
    trace, caller_span = tracing.incoming(headers.get(tracing.HEADER))
    if screens.filter is not None:
        verdict = await filter_decision(screens.filter, request, raw)
        if not verdict.passed:
            filtered = delivery_for(
                request,
                target,
                headers,
                query,
                body,
                transform_type,
                trace,
                filtered=True,
                filter_note=verdict.note,
            )
            answer = await record_filtered(svc, filtered, claim)
            return traced(svc, answer, filtered, trace, caller_span, started_ns)
    variables: dict[str, str] | None = None
    transform_error: str | None = None
    mappings = transform_config.get("jsonPathMappings") or {}
    transform_started = now_ns()
    try:
        if transform_type == "JSONPATH" and needs_sandbox(mappings):
            content_type = headers.get("content-type")
            variables = await jsonpath_in_sandbox(svc, target, mappings, body, query, content_type)
        elif transform_type == "JSONPATH" and len(raw) <= INLINE_TRANSFORM_BYTES:
            # apply_transform's JSONPATH branch, with the mappings compiled once per cached target.
            content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
            inline = transform_config.get("jsonPathMappings", transform_config.get("json_path_mappings"))
            compiled = compiled_mappings(target, inline or {})
            variables = apply_jsonpath(compiled, body, query, content_type)
        else:
            runner = script_transform(tenant=target.company_id)
            variables = await run_in_threadpool(
                apply_transform, transform_config, body, headers, query, run_script=runner
            )
    except SandboxBusy as busy:
        return _busy(target, busy)
    except TransformError as exc:
        transform_error = str(exc)
    transform_ns = (transform_started, now_ns())

    variables_json = json.dumps(variables) if variables is not None else None
    delivery = delivery_for(
        request,
        target,
        headers,
        query,
        body,
        transform_type,
        trace,
        variables_json=variables_json,
        transform_error=transform_error,
    )
    ids = {"execution_id": delivery.execution_id, "webhook_id": target.webhook_id}
    task = await record(svc, delivery, claim)
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


# Served by `ingress.trigger_fast_path` ahead of the router; registered here for the OpenAPI document.
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
