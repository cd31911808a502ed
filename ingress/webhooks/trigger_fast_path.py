"""The public trigger served straight from the ASGI stack, ahead of FastAPI's router.

The trigger is the one endpoint called at event rates (hundreds to thousands a second). FastAPI's routing
(matching the path against every route), dependency solving and exception middlewares cost more CPU than the
trigger's own work (docs/performance.md, "Figures behind choices in the code"), for an endpoint that takes no
typed body and answers with its own JSON. This middleware sits inside ``EdgeMiddleware`` (request id, metrics,
access log, body limit, last-resort 500) and hands the five trigger methods on the exact trigger path to
``trigger.trigger_webhook`` directly. The FastAPI routes stay registered, so the OpenAPI document still shows
the trigger, and any other method or path goes on to FastAPI. An error the trigger raises is answered here in
the trigger's own 500 shape (``ingress/webhooks/trigger_failures.py``), except a database outage, which
``DatabaseOutage`` answers with a 503.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ingress.errors import BodyTooLarge, error_response
from ingress.webhooks import trigger_failures
from ingress.webhooks.trigger import TRIGGER_METHODS, TRIGGER_PATH, trigger_webhook
from ingress.webhooks.trigger_clients import TriggerClients


@dataclass(frozen=True)
class _Route:
    """What ``EdgeMiddleware`` reads from ``scope["route"]``: the route's path, for the metrics label."""

    path: str


_TRIGGER_ROUTE = _Route(TRIGGER_PATH)


class TriggerFastPath:
    def __init__(self, app: ASGIApp, *, clients: Callable[[], TriggerClients]) -> None:
        self.app = app
        self.clients = clients

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != TRIGGER_PATH or scope["method"] not in TRIGGER_METHODS:
            await self.app(scope, receive, send)
            return
        scope["route"] = _TRIGGER_ROUTE
        request = Request(scope, receive)
        try:
            response = await trigger_webhook(request, self.clients())
        except BodyTooLarge as error:  # a body without Content-Length that passed the request limit
            response = error_response(error.status_code, [str(error.detail)])
        except ClientDisconnect:
            raise  # nobody to answer; the edge counts it
        except Exception as error:
            if trigger_failures.outage(error):
                raise  # DatabaseOutage, around this middleware, answers 503 with Retry-After
            # The interface's 500 for the trigger is its ExecuteWebhookResponse, not the edge's generic body.
            response = trigger_failures.internal_error(error, TRIGGER_PATH)
        await response(scope, receive, send)
