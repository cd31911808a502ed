"""The console's calls into the API: each one a real HTTP request to this same app, in process.

The request goes through the app's whole stack (edge middleware, validation, the route, its grants,
masking and errors), so the console sees exactly what the API answers. Who it acts as travels in the ASGI
scope (``IN_PROCESS_CALLERS``), which only code in this process can set; the dependencies of
``ingress/deps.py`` take it in place of a key and still apply the caller's rate limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from ingress.deps import IN_PROCESS_CALLERS
from schemas.admin import Principal
from schemas.enums import KeyKind

WEBHOOKS = "/svc_poweruser/custom-webhooks"
SCHEDULES = "/clients/scheduled-events"
ANALYTICS = "/clients/svcdb/analytics"
TABLES = "/svc_poweruser/analytics/tables"
ALERTS = "/svc_poweruser/alerts"
DESTINATIONS = "/svc_poweruser/destinations"
TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def errors(self) -> list[str]:
        """The API's own messages (``errors``), or the status alone when it gave none."""
        found = self.body.get("errors") or []
        if not found and isinstance(self.body.get("error"), str):
            found = [self.body["error"]]
        if not found and not self.ok:
            found = [f"HTTP {self.status}"]
        return [str(item) for item in found]


class _ActingAs:
    """The app with the console's callers put into each request's scope."""

    def __init__(self, app: ASGIApp, callers: dict[str, Principal]) -> None:
        self.app, self.callers = app, callers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app({**scope, IN_PROCESS_CALLERS: self.callers}, receive, send)


def _decoded(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {"value": body}


async def call(
    app: ASGIApp,
    path: str,
    body: dict[str, Any],
    *,
    peer: str | None,
    request_id: str | None = None,
    callers: dict[str, Principal] | None = None,
    authorization: str | None = None,
    params: dict[str, str] | None = None,
) -> Answer:
    """POST ``body`` to ``path`` as ``callers`` (or with ``authorization`` as a key, for the sign-in), from
    the browser's address ``peer`` (the auth throttle counts refused keys by it)."""
    target: ASGIApp = _ActingAs(app, callers) if callers is not None else app
    transport = httpx.ASGITransport(app=target, client=(peer or "127.0.0.1", 0))
    headers = {"authorization": authorization} if authorization else {}
    if request_id:
        headers["x-request-id"] = request_id
    async with httpx.AsyncClient(
        transport=transport, base_url="http://console.internal", timeout=TIMEOUT_SECONDS
    ) as client:
        response = await client.post(path, json=body, headers=headers, params=params)
    kept = {name: response.headers[name] for name in ("retry-after",) if name in response.headers}
    return Answer(response.status_code, _decoded(response), kept)


def callers_of(poweruser: Principal, client: Principal | None) -> dict[str, Principal]:
    callers = {KeyKind.POWERUSER.value: poweruser}
    if client is not None:
        callers[KeyKind.CLIENT.value] = client
    return callers
