"""Handler invokers: an HTTP endpoint gets a JSON POST, a ``kafka://<topic>`` endpoint gets a record."""

from __future__ import annotations

import json
from typing import Any

import httpx

from schemas.deliveries import HandlerOutcome
from sinks.exceptions import BrokerUnavailable
from sinks.kafka import Publisher

MAX_RECORDED_RESPONSE = 64 * 1024
# Statuses worth another attempt: the handler may succeed later. Other 4xx answers are permanent.
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def _response_body(response: httpx.Response) -> Any:
    text = response.text
    if len(text) > MAX_RECORDED_RESPONSE:
        return {"truncated": True, "text": text[:MAX_RECORDED_RESPONSE]}
    try:
        return json.loads(text) if text else None
    except ValueError:
        return {"text": text}


class HandlerInvoker:
    """Calls handlers; ``kafka://`` endpoints go through the process's one (started) producer."""

    def __init__(self, publisher: Publisher | None) -> None:
        self._http = httpx.AsyncClient(follow_redirects=False, limits=httpx.Limits(max_connections=256))
        self._publisher = publisher

    async def stop(self) -> None:
        await self._http.aclose()

    async def invoke(self, endpoint: str, request: dict[str, Any], timeout_seconds: float) -> HandlerOutcome:
        if endpoint.startswith("kafka://"):
            return await self._publish(endpoint.removeprefix("kafka://"), request, timeout_seconds)
        return await self._post(endpoint, request, timeout_seconds)

    async def _post(self, url: str, request: dict[str, Any], timeout_seconds: float) -> HandlerOutcome:
        headers = {
            "Idempotency-Key": str(request["idempotencyKey"]),
            "X-Svc-Execution-Id": str(request["executionId"]),
            "X-Svc-Attempt": str(request["attemptNumber"]),
        }
        try:
            response = await self._http.post(url, json=request, headers=headers, timeout=timeout_seconds)
        except httpx.TimeoutException:
            return HandlerOutcome(ok=False, error=f"Handler did not answer within {timeout_seconds:g} s")
        except httpx.HTTPError as exc:
            return HandlerOutcome(ok=False, error=f"Handler could not be reached: {type(exc).__name__}")
        body = _response_body(response)
        if response.is_success:
            return HandlerOutcome(ok=True, response={"status": response.status_code, "body": body})
        return HandlerOutcome(
            ok=False,
            response={"status": response.status_code, "body": body},
            error=f"Handler answered HTTP {response.status_code}",
            retryable=response.status_code in RETRYABLE_STATUSES,
        )

    async def _publish(self, topic: str, request: dict[str, Any], timeout_seconds: float) -> HandlerOutcome:
        if self._publisher is None:
            return HandlerOutcome(
                ok=False, error="No broker is configured for kafka:// handlers", retryable=False
            )
        value = json.dumps({"type": "webhook.handler.request", "v": 1, "payload": request}).encode()
        key = str(request.get("executionId") or request.get("runId") or "")
        try:
            metadata = await self._publisher.send(
                topic, value, key=key or None, limit_seconds=timeout_seconds
            )
        except BrokerUnavailable as exc:
            return HandlerOutcome(ok=False, error=f"Handler topic {topic} did not take the record: {exc}")
        return HandlerOutcome(
            ok=True,
            response={"topic": metadata.topic, "partition": metadata.partition, "offset": metadata.offset},
        )
