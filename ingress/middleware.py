"""The ASGI edge: request ids, rate-limit headers, body-size limit, metrics, access log, last-resort 500."""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
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


@dataclass(frozen=True)
class AccessLog:
    """Which requests get an access-log line: ``all``, ``errors`` (5xx, or slower than ``slow_ms``) or
    ``off``."""

    mode: str = "all"
    slow_ms: int = 1000

    def wanted(self, status: int, elapsed: float) -> bool:
        if self.mode == "all":
            return True
        return self.mode == "errors" and (status >= 500 or elapsed * 1000 >= self.slow_ms)


class EdgeMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        metrics: HttpMetrics,
        own_limit_prefixes: tuple[str, ...] = (),
        access_log: AccessLog | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.metrics = metrics
        self.access_log = access_log or AccessLog()
        # Metric children by label values: prometheus_client's labels() locks and builds a key on every call.
        self._counted: dict[tuple[str, str, str], Any] = {}
        self._timed: dict[tuple[str, str], Any] = {}
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
                # Appended as raw pairs: these names are set here only, never by a route, and starlette's
                # MutableHeaders scans every header to replace one.
                headers = [*message.get("headers", ()), (b"x-request-id", request_id.encode("latin-1"))]
                rate = state.get("rate_headers")
                if rate:
                    # A 429 names its own Retry-After, which the limiter's headers carry too: one of each.
                    present = {name.lower() for name, _ in headers}
                    for name, value in rate.items():
                        key = name.lower().encode()
                        if key not in present:
                            headers.append((key, value.encode("latin-1")))
                message["headers"] = headers
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
            self._count(scope["method"], route, status, elapsed)
            if self.access_log.wanted(status, elapsed) and log.isEnabledFor(logging.INFO):
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

    def _count(self, method: str, route: str, status: int, elapsed: float) -> None:
        key = (method, route, str(status))
        counted = self._counted.get(key)
        if counted is None:
            counted = self._counted[key] = self.metrics.requests.labels(*key)
        counted.inc()
        timed = self._timed.get(key[:2])
        if timed is None:
            timed = self._timed[key[:2]] = self.metrics.latency.labels(method, route)
        timed.observe(elapsed)

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
