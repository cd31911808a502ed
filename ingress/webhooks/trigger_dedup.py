"""The trigger's deduplication step: a delivery whose key this webhook already saw within its window answers
200 ``duplicate: true`` with the first delivery's executionId, and nothing new is recorded or queued.

The key is the caller's ``Idempotency-Key`` header or, on a webhook with a ``verificationConfig``, the
provider's delivery id (``core/webhooks/dedup.py``). The step runs after the key, the rate limit and the
provider signature (a forged or unauthenticated request never reads or claims a key) and before the
validation script, the filter and the transform (a duplicate costs none of them).

Cost: a delivery without a key pays one dictionary lookup (and, on a verified webhook, the provider's id
lookup: a header, or for Stripe, Slack and Paddle a parse of the JSON body, in a worker thread above
``INLINE_BYTES``). A delivery with a key pays one read by primary key here (``lookup``, which answers a
provider's sequential redeliveries), and its claim is one more statement in the group commit that records it
(``sinks/db/webhooks/dedup.py``), which is what makes concurrent duplicates race-free.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from core.signatures import provider_delivery_id
from core.webhooks import dedup as rules
from ingress.webhooks.trigger_clients import TriggerClients
from ingress.webhooks.trigger_screening import INLINE_BYTES
from schemas.deliveries import DeliveryTask, DuplicateWebhookResponse, ExecuteWebhookResponse
from schemas.verification import VerificationConfig
from sinks.db.webhooks import dedup
from sinks.db.webhooks.dedup import Claim, Duplicate
from sinks.db.webhooks.deliveries import Delivery, TriggerTarget

DUPLICATE_MESSAGE = (
    "Webhook already received: a delivery with the same idempotency key was accepted within the "
    "deduplication window, so nothing new was queued"
)
Commit = Callable[[Callable[[Session], Any]], Awaitable[Any]]


def duplicate_answer(target: TriggerTarget, execution_id: str) -> JSONResponse:
    answer = DuplicateWebhookResponse(
        success=True, message=DUPLICATE_MESSAGE, execution_id=execution_id, webhook_id=target.webhook_id
    )
    return JSONResponse(answer.model_dump(by_alias=True), status_code=200)


def _bad_key(target: TriggerTarget, message: str) -> JSONResponse:
    answer = ExecuteWebhookResponse(
        success=False, message=message, webhook_id=target.webhook_id, errors=[message]
    )
    return JSONResponse(answer.model_dump(by_alias=True), status_code=400)


async def screen(
    svc: TriggerClients,
    target: TriggerTarget,
    request: Request,
    headers: dict[str, str],
    raw: bytes,
    verification: VerificationConfig | None,
) -> Claim | JSONResponse | None:
    """The claim the delivery takes when it is recorded; the answer when it is a duplicate (200) or its
    ``Idempotency-Key`` is unusable (400); None when it has no key or its webhook switched dedup off."""
    if rules.IDEMPOTENCY_HEADER not in headers and verification is None:
        return None
    window = rules.window_seconds(target.config)
    if window is None:
        return None
    try:
        key = await _key(request, headers, raw, verification)
    except rules.InvalidIdempotencyKey as invalid:
        return _bad_key(target, str(invalid))
    if key is None:
        return None
    now = datetime.now(UTC)
    claim = Claim(target.webhook_id, target.company_id, key, now, rules.expires_at(now, window))
    if svc.engine.dialect.name == "sqlite":
        # A primary-key read of a local file in WAL mode: cheaper inline than a hop to a worker thread.
        first = _lookup(svc, claim)
    else:
        first = await run_in_threadpool(_lookup, svc, claim)
    return claim if first is None else duplicate_answer(target, first)


async def _key(
    request: Request, headers: dict[str, str], raw: bytes, verification: VerificationConfig | None
) -> str | None:
    sent = request.headers.getlist(rules.IDEMPOTENCY_HEADER) if rules.IDEMPOTENCY_HEADER in headers else []
    if sent or verification is None:
        return rules.delivery_key(sent, None)
    if len(raw) > INLINE_BYTES:  # Stripe, Slack and Paddle parse the body for their id
        return await run_in_threadpool(provider_delivery_id, verification, request.headers, raw)
    return provider_delivery_id(verification, request.headers, raw)


def _lookup(svc: TriggerClients, claim: Claim) -> str | None:
    with svc.engine.connect() as connection:
        return dedup.lookup(connection, claim)


def recording(delivery: Delivery, claim: Claim | None) -> Callable[[Session], DeliveryTask | Duplicate]:
    """The group commit's unit of work recording ``delivery`` (with its claim, when it has a key)."""
    return dedup.recording(delivery, claim)


def answered(recorded: DeliveryTask | Duplicate, target: TriggerTarget) -> DeliveryTask | JSONResponse:
    """The recorded delivery's task, or the duplicate's answer when its claim was refused at commit."""
    if isinstance(recorded, Duplicate):
        return duplicate_answer(target, recorded.execution_id)
    return recorded


def releasing(commit: Commit, claim: Claim | None, execution_id: str) -> Commit:
    """``commit``, freeing the delivery's key in the same transaction as the unit of work it runs (marking
    the delivery FAILED because it could not be queued), so the caller's retry is not a duplicate."""
    if claim is None:
        return commit

    def run(work: Callable[[Session], Any]) -> Awaitable[Any]:
        def then_release(session: Session) -> Any:
            result = work(session)
            dedup.release(session, claim, execution_id)
            return result

        return commit(then_release)

    return run
