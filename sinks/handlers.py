"""Handler invokers: an HTTP endpoint gets a JSON POST, a ``kafka://<topic>`` endpoint gets a record.

HTTP calls go through one aiohttp session per process: it costs about a twentieth of the CPU time per
request of httpx's async client, which made handler calls the ceiling of a worker's throughput.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import aiohttp

from core.webhooks.destinations import retry_after_seconds
from schemas.deliveries import HandlerOutcome
from schemas.records import HandlerRequest, encode
from sinks.exceptions import BrokerUnavailable
from sinks.kafka import Publisher

MAX_RECORDED_RESPONSE = 64 * 1024
# Statuses worth another attempt: the handler may succeed later. Other 4xx answers are permanent.
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
# Statuses whose Retry-After holds back every call to the destination (docs/webhooks.md#destinations).
BACK_OFF_STATUSES = frozenset({429, 503})


def _response_body(text: str) -> Any:
    if len(text) > MAX_RECORDED_RESPONSE:
        return {"truncated": True, "text": text[:MAX_RECORDED_RESPONSE]}
    try:
        return json.loads(text) if text else None
    except ValueError:
        return {"text": text}


class HandlerInvoker:
    """Calls handlers; ``kafka://`` endpoints go through the process's one (started) producer."""

    def __init__(self, publisher: Publisher | None) -> None:
        self._http: aiohttp.ClientSession | None = None
        self._publisher = publisher

    def _session(self) -> aiohttp.ClientSession:
        # Made on first use, inside the running loop the session belongs to.
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=256), json_serialize=json.dumps
            )
        return self._http

    async def stop(self) -> None:
        if self._http is not None:
            await self._http.close()

    async def invoke(
        self, endpoint: str, request: dict[str, Any], timeout_seconds: float, traceparent: str | None = None
    ) -> HandlerOutcome:
        """``traceparent``: the W3C trace context of the handler call, sent as the ``traceparent`` header (a
        record header for ``kafka://``)."""
        if endpoint.startswith("kafka://"):
            return await self._publish(
                endpoint.removeprefix("kafka://"), request, timeout_seconds, traceparent
            )
        return await self._post(endpoint, request, timeout_seconds, traceparent)

    async def _post(
        self, url: str, request: dict[str, Any], timeout_seconds: float, traceparent: str | None
    ) -> HandlerOutcome:
        headers = {
            "Idempotency-Key": str(request["idempotencyKey"]),
            "X-Svc-Execution-Id": str(request["executionId"]),
            "X-Svc-Attempt": str(request["attemptNumber"]),
        }
        if traceparent is not None:
            headers["traceparent"] = traceparent
        return await self._exchange(url, json.dumps(request).encode(), headers, timeout_seconds)

    async def send_signed(
        self, endpoint: str, body: bytes, headers: dict[str, str], timeout_seconds: float, key: str
    ) -> HandlerOutcome:
        """``body`` exactly as given (its signature covers these bytes) with ``headers``: a JSON POST to an
        HTTP endpoint, or a record of ``kafka://<topic>`` whose value is the body and whose headers are
        these (keyed ``key``)."""
        if endpoint.startswith("kafka://"):
            return await self._send_record(
                endpoint.removeprefix("kafka://"),
                body,
                key,
                [(name, value.encode()) for name, value in headers.items()],
                timeout_seconds,
            )
        return await self._exchange(endpoint, body, headers, timeout_seconds)

    async def _exchange(
        self, url: str, body: bytes, headers: dict[str, str], timeout_seconds: float
    ) -> HandlerOutcome:
        try:
            async with self._session().post(
                url,
                data=body,
                headers={"Content-Type": "application/json", **headers},
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=timeout_seconds),
            ) as response:
                status = response.status
                text = await response.text(errors="replace")
                retry_after = response.headers.get("Retry-After")
        except TimeoutError:
            return HandlerOutcome(ok=False, error=f"Handler did not answer within {timeout_seconds:g} s")
        except (aiohttp.ClientError, ValueError) as exc:
            return HandlerOutcome(ok=False, error=f"Handler could not be reached: {type(exc).__name__}")
        body = _response_body(text)
        if 200 <= status < 300:
            return HandlerOutcome(ok=True, response={"status": status, "body": body})
        return HandlerOutcome(
            ok=False,
            response={"status": status, "body": body},
            error=f"Handler answered HTTP {status}",
            retryable=status in RETRYABLE_STATUSES,
            retry_after_seconds=(
                retry_after_seconds(retry_after, datetime.now(UTC)) if status in BACK_OFF_STATUSES else None
            ),
        )

    async def _publish(
        self, topic: str, request: dict[str, Any], timeout_seconds: float, traceparent: str | None
    ) -> HandlerOutcome:
        value = encode(HandlerRequest(request=request))
        key = str(request.get("executionId") or request.get("runId") or "")
        headers = None if traceparent is None else [("traceparent", traceparent.encode())]
        return await self._send_record(topic, value, key, headers, timeout_seconds)

    async def _send_record(
        self,
        topic: str,
        value: bytes,
        key: str,
        headers: list[tuple[str, bytes]] | None,
        timeout_seconds: float,
    ) -> HandlerOutcome:
        if self._publisher is None:
            return HandlerOutcome(
                ok=False, error="No broker is configured for kafka:// handlers", retryable=False
            )
        try:
            metadata = await self._publisher.send(
                topic, value, key=key or None, limit_seconds=timeout_seconds, headers=headers
            )
        except BrokerUnavailable as exc:
            return HandlerOutcome(ok=False, error=f"Handler topic {topic} did not take the record: {exc}")
        return HandlerOutcome(
            ok=True,
            response={"topic": metadata.topic, "partition": metadata.partition, "offset": metadata.offset},
        )
