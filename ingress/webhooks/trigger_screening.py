"""The trigger's two screens of a delivery: the provider signature and the content filter.

``webhookConfig.verificationConfig`` is checked after the key and before the validation script: a delivery
without the provider's valid, fresh signature is an authentication failure, 401 ``Invalid signature.``, with
nothing recorded or queued. ``webhookConfig.filterConfig`` is checked after the validation script: a delivery
that does not match is recorded FILTERED and answered 200 ``filtered: true``, and no handler runs.

A webhook with neither costs two dictionary lookups (``screens_for``). For the others, the stored
configuration is opened (the secret decrypted, the filter validated) once per cached webhook row, not per
delivery.

CPU, on the event loop or not: verification is an HMAC-SHA256 (HMAC-SHA1 for Twilio, a constant-time
comparison for GitLab) over the raw body, linear in its size, and parses at most one short header (4 KiB,
16 signatures; Twilio at most 1,000 form fields). A filter's match counts its steps (``core/filters.py``):
each value compared is one. So up to ``INLINE_BYTES`` of body both run on the event loop, the filter within
``INLINE_MATCH_STEPS``; a larger body or a match that needs more steps goes to a worker thread, where the
match stops at ``MAX_MATCH_STEPS`` (the costs behind these bounds: docs/performance.md). Neither runs in the
script sandbox: there is no tenant code to contain, only work bounded by these limits.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from core.filters import MAX_MATCH_STEPS, FilterTooCostly, matches
from core.lru import Lru
from core.signatures import SignatureRejected, verify
from ingress.log_throttle import LogThrottle
from schemas.filters import FilterConfig
from schemas.verification import VerificationConfig
from sinks.db.webhooks.deliveries import TriggerTarget
from sinks.db.webhooks.secrets import VERIFICATION, verification_of
from sinks.iceberg.masking import Masker

log = logging.getLogger(__name__)

INVALID_SIGNATURE = "Invalid signature."
FILTER = "filterConfig"
# Bodies up to this size are verified and matched on the event loop (a thread hop costs more than that).
INLINE_BYTES = 16 * 1024
INLINE_MATCH_STEPS = 2_000
FILTERED_MESSAGE = "Webhook received; it did not match the webhook's filter and was not queued"
TOO_COSTLY_MESSAGE = (
    "Webhook received; the webhook's filter could not be evaluated within its budget, so it was not queued"
)


@dataclass(frozen=True)
class Screens:
    verification: VerificationConfig | None
    filter: FilterConfig | None


NO_SCREENS = Screens(None, None)
# Screens per cached target (id -> the target and its screens). A webhook that changed is a new target
# object (ingress/webhooks/trigger_targets.py), so its screens are prepared afresh.
_PREPARED: Lru[int, tuple[TriggerTarget, Screens]] = Lru(1024)


def screens_for(target: TriggerTarget, masker: Masker) -> Screens:
    config = target.config
    if VERIFICATION not in config and FILTER not in config:
        return NO_SCREENS
    prepared = _PREPARED.get(id(target))
    if prepared is not None and prepared[0] is target:
        return prepared[1]
    verification = config.get(VERIFICATION)
    flt = config.get(FILTER)
    screens = Screens(
        verification=verification_of(masker, target.company_id, verification) if verification else None,
        filter=FilterConfig.model_validate(flt) if flt else None,
    )
    _PREPARED.put(id(target), (target, screens))
    return screens


def public_url(request: Request, base_url: str | None) -> str:
    """The URL the provider called, as it signs it (Twilio): ``SVC_PUBLIC_BASE_URL`` with the request's path
    and query, or, when that is unset, the request's own scheme and Host header."""
    query = request.scope.get("query_string", b"").decode("latin-1")
    if base_url is None:
        return str(request.url)
    url = base_url.rstrip("/") + request.scope["path"]
    return f"{url}?{query}" if query else url


class _RefusalLog:
    """One line a second at most: refused signatures at a flood's rate would be a line per request."""

    def __init__(self, every_seconds: float = 1.0) -> None:
        self._throttle = LogThrottle(every_seconds)

    def refused(self, target: TriggerTarget, provider: str, reason: str) -> None:
        also = self._throttle.take()
        if also is None:
            return
        # The reason names headers and numbers, never the secret or a received value (core/signatures).
        log.info(
            "webhook delivery refused: invalid signature",
            extra={
                "webhook_id": target.webhook_id,
                "company_id": target.company_id,
                "provider": provider,
                "reason": reason,
                "also_refused": also,
            },
        )


_refusals = _RefusalLog()


async def signature_refusal(
    verification: VerificationConfig,
    target: TriggerTarget,
    request: Request,
    raw: bytes,
    base_url: str | None,
) -> JSONResponse | None:
    """The 401 for a delivery without the provider's valid signature; None when the signature holds."""
    arguments: dict[str, Any] = {
        "method": request.method,
        "url": public_url(request, base_url),
        # Starlette's headers list every header line, so a signature header sent twice with different
        # values is seen as such (and refused), not joined into one value.
        "headers": request.headers,
        "body": raw,
        "now": datetime.now(UTC),
    }
    try:
        if len(raw) <= INLINE_BYTES:
            verify(verification, **arguments)
        else:
            await run_in_threadpool(verify, verification, **arguments)
    except SignatureRejected as rejected:
        _refusals.refused(target, verification.provider.value, rejected.reason)
        return JSONResponse({"error": INVALID_SIGNATURE}, status_code=401)
    return None


@dataclass(frozen=True)
class FilterDecision:
    passed: bool
    note: str | None = None


Pairs = Sequence[tuple[str, str]]


async def filter_decision(flt: FilterConfig, raw: bytes, headers: Pairs, query: Pairs) -> FilterDecision:
    """Whether the delivery matches ``flt``: its parsed JSON body (None if not JSON), headers and query
    (every header line and query pair, repeats included)."""
    if len(raw) > INLINE_BYTES:
        return await run_in_threadpool(_decide_raw, flt, raw, headers, query)
    body = parsed_json(raw)
    try:
        return FilterDecision(
            matches(
                flt, body=body, headers=_grouped(headers), query=_grouped(query), max_steps=INLINE_MATCH_STEPS
            )
        )
    except FilterTooCostly:
        return await run_in_threadpool(_decide, flt, body, headers, query)


def _decide_raw(flt: FilterConfig, raw: bytes, headers: Pairs, query: Pairs) -> FilterDecision:
    return _decide(flt, parsed_json(raw), headers, query)


def _decide(flt: FilterConfig, body: Any, headers: Pairs, query: Pairs) -> FilterDecision:
    try:
        passed = matches(
            flt, body=body, headers=_grouped(headers), query=_grouped(query), max_steps=MAX_MATCH_STEPS
        )
    except FilterTooCostly as too_costly:
        # Fail closed: the delivery is kept in the history (FILTERED, with this note), not passed on.
        return FilterDecision(False, f"Filter not evaluated: {too_costly}; the delivery was not queued")
    return FilterDecision(passed)


def _grouped(pairs: Pairs) -> Mapping[str, Sequence[str]]:
    """Each name with every value it was given, in order (``matches`` makes one value a string again)."""
    grouped: dict[str, list[str]] = {}
    for name, value in pairs:
        grouped.setdefault(name, []).append(value)
    return grouped


def parsed_json(raw: bytes) -> Any:
    """The body as JSON, or None when it is empty or not JSON."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None
