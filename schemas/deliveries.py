"""Webhook delivery records on Kafka and the trigger endpoint's answer."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from schemas.base import WireModel

DELIVERY_TYPE = "webhook.delivery"
RESULT_TYPE = "webhook.result"
HANDLER_REQUEST_TYPE = "webhook.handler.request"


class DeliveryTask(WireModel):
    """Payload of a ``webhook.delivery`` v1 record: which history entry (one attempt) to run."""

    entry_id: str
    execution_id: str
    webhook_id: str
    company_id: str
    attempt_number: int = Field(ge=1)


class DeliveryResult(WireModel):
    """Payload of a ``webhook.result`` v1 record, published once per finished attempt."""

    entry_id: str
    execution_id: str
    webhook_id: str
    company_id: str
    attempt_number: int
    status: str
    resource_type: str | None
    resource_id: str | None
    duration_ms: int | None
    error_message: str | None
    will_retry: bool


class ExecuteWebhookResponse(WireModel):
    success: bool
    message: str
    execution_id: str | None = None
    webhook_id: str | None = None
    errors: list[str] = Field(default_factory=list)


class HandlerOutcome(WireModel):
    """What a handler call produced (recorded in history, never returned to the webhook caller)."""

    ok: bool
    response: Any = None
    error: str | None = None
    retryable: bool = True
