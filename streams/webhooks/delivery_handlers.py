"""One delivery attempt's handler call (streams/webhooks/deliveries.py runs the attempt;
streams/handler_call.py makes the call, as it does for a scheduled run): an agent or tool at the version its
webhook's config picks now, or an svcdb operation; and the webhook's ``executionSettings`` that govern the
call (``timeoutSeconds``) and what follows a failure (``maxRetries``, ``retryDelaySeconds``)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from core.tracing import TraceContext
from schemas.deliveries import DeliveryTask, HandlerOutcome
from schemas.webhooks import StoredWebhookConfig
from streams.handler_call import invoke_handler, run_svcdb, table_missing
from streams.runtime import HandlerRuntime


def handler_timeout(config: StoredWebhookConfig) -> float:
    """The webhook's timeoutSeconds, as the handler call uses it."""
    return float(config.execution_settings.timeout_seconds)


def retry_at(
    config: StoredWebhookConfig, attempt_number: int, ended_at: datetime, outcome: HandlerOutcome
) -> datetime | None:
    """When the next attempt may run, or None when this was the last one (or the failure is permanent)."""
    settings = config.execution_settings
    if outcome.ok or not outcome.retryable or attempt_number > settings.max_retries:
        return None
    return ended_at + timedelta(seconds=settings.retry_delay_seconds)


async def call_handler(
    runtime: HandlerRuntime,
    task: DeliveryTask,
    execution: dict[str, Any],
    request: dict[str, Any],
    config: StoredWebhookConfig,
    span: TraceContext | None = None,
) -> HandlerOutcome:
    kind = execution.get("resourceType")
    if kind == "SVCDB":
        operation = request.get("svcDbConfig") or {}
        # Safe to repeat: the execution id is the write's idempotency key.
        outcome = await run_svcdb(
            runtime, task.company_id, task.execution_id, operation, handler_timeout(config)
        )
        if outcome is None:
            return HandlerOutcome(ok=False, error=table_missing(operation), retryable=False)
        return outcome
    resource_id = str(execution.get("resourceId"))
    return await invoke_handler(
        runtime,
        company_id=task.company_id,
        kind=str(kind),
        resource_id=resource_id,
        stored_version=execution.get("version"),
        label=f"Handler {kind} {resource_id}",
        request=request,
        timeout_seconds=handler_timeout(config),
        traceparent=None if span is None else span.traceparent,
    )
