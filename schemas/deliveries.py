"""Webhook delivery records on Kafka and the trigger endpoint's answer."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from schemas.base import WireModel
from schemas.records import DeliveryResult, DeliveryTask

__all__ = [
    "DeliveryResult",
    "DeliveryTask",
    "DuplicateWebhookResponse",
    "ExecuteWebhookResponse",
    "FilteredWebhookResponse",
    "HandlerOutcome",
]


class ExecuteWebhookResponse(WireModel):
    success: bool
    message: str
    execution_id: str | None = None
    webhook_id: str | None = None
    errors: list[str] = Field(default_factory=list)


class FilteredWebhookResponse(ExecuteWebhookResponse):
    """The trigger's 200: the delivery is recorded (status FILTERED) but did not match the webhook's
    filterConfig, so it was not queued and no handler runs."""

    filtered: bool = True


class DuplicateWebhookResponse(ExecuteWebhookResponse):
    """The trigger's 200 for a delivery whose Idempotency-Key (or provider delivery id) the webhook saw within
    its deduplication window: ``executionId`` is the first delivery's; nothing new was recorded or queued."""

    duplicate: bool = True


class HandlerOutcome(WireModel):
    """What a handler call produced (recorded in history, never returned to the webhook caller)."""

    ok: bool
    response: Any = None
    error: str | None = None
    retryable: bool = True
    # A 429 or 503 with Retry-After: seconds the destination asked to be left alone.
    retry_after_seconds: float | None = None
