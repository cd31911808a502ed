"""The ASGI edge: request ids, rate-limit headers, body-size limit, metrics, access log, last-resort 500."""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ingress.errors import BodyTooLarge, failure_body
from schemas.ids import new_id

log = logging.getLogger("svc.access")
_INCOMING_ID = re.compile(r"^[A-Za-z0-9._:-]{8,128}$")


class HttpMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "svc_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=registry
        )
        self.latency = Histogram(
            "svc_http_request_seconds",
            "Time to answer an HTTP request",
            ["method", "route"],
            registry=registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )


class EdgeMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        metrics: HttpMetrics,
        own_limit_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.metrics = metrics
        # Paths whose routes stream their body and enforce a limit of their own (upload parts).
        self.own_limit_prefixes = own_limit_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started_at = time.perf_counter()
        state: dict[str, Any] = scope.setdefault("state", {})
        incoming = _header(scope, b"x-request-id")
        request_id = incoming if incoming and _INCOMING_ID.match(incoming) else new_id()
        state["request_id"] = request_id
        status = 500
        response_started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = MutableHeaders(scope=message)
                headers["X-Request-Id"] = request_id
                rate = state.get("rate_headers")
                if rate:
                    for name, value in rate.items():
                        headers[name] = value
            await send(message)

        try:
            if str(scope.get("path", "")).startswith(self.own_limit_prefixes):
                await self.app(scope, receive, send_with_headers)
                return
            declared = _header(scope, b"content-length")
            if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
                message = f"Request body exceeds the limit of {self.max_body_bytes} bytes"
                await _send_json(send_with_headers, 413, failure_body(scope["path"], 413, [message]))
                return
            await self.app(scope, self._counting(receive), send_with_headers)
        except ClientDisconnect:
            # The caller gave up before its body arrived: nobody is left to answer, and it is not our error.
            status = 499
        except Exception:
            log.exception("unhandled error", extra={"request_id": request_id, "path": scope.get("path")})
            if not response_started:
                await _send_json(
                    send_with_headers, 500, failure_body(scope["path"], 500, ["Internal server error"])
                )
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            elapsed = time.perf_counter() - started_at
            self.metrics.requests.labels(scope["method"], route, str(status)).inc()
            self.metrics.latency.labels(scope["method"], route).observe(elapsed)
            if log.isEnabledFor(logging.INFO):
                log.info(
                    "request",
                    extra={
                        "request_id": request_id,
                        "method": scope["method"],
                        "route": route,
                        "status": status,
                        "ms": round(elapsed * 1000, 2),
                    },
                )

    def _counting(self, receive: Receive) -> Receive:
        received = 0
        limit = self.max_body_bytes

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        return counted


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _send_json(send: Send, status: int, answer: dict[str, Any]) -> None:
    body = json.dumps(answer).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
