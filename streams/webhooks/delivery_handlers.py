"""One delivery attempt's handler call (streams/webhooks/deliveries.py runs the attempt): an agent or tool at
the version its webhook's config picks now, or an svcdb operation; and the webhook's ``executionSettings``
that govern the call (``timeoutSeconds``) and what follows a failure (``maxRetries``,
``retryDelaySeconds``)."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import Any

from core.tracing import TraceContext
from schemas.deliveries import DeliveryTask, HandlerOutcome
from schemas.webhooks import StoredWebhookConfig
from streams.runtime import HandlerRuntime, HandlerUnavailable


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
        return await _svcdb(runtime, task, request.get("svcDbConfig") or {}, config)
    resource_id = str(execution.get("resourceId"))
    try:
        version = await runtime.handler_version(
            task.company_id,
            resource_id,
            str(kind),
            execution.get("version"),
            f"Handler {kind} {resource_id}",
        )
    except HandlerUnavailable as exc:
        return HandlerOutcome(ok=False, error=str(exc), retryable=False)
    # Resolved for every attempt: a config without a versionNumber follows what is published now. The
    # request (and so the history's copy of it) says which version ran.
    request["version"] = version.resolved().model_dump(mode="json", by_alias=True)
    traceparent = None if span is None else span.traceparent
    return await runtime.invoker.invoke(version.endpoint, request, handler_timeout(config), traceparent)


async def _svcdb(
    runtime: HandlerRuntime, task: DeliveryTask, operation: dict[str, Any], config: StoredWebhookConfig
) -> HandlerOutcome:
    table_id = str(operation.get("targetTableId"))
    timeout = handler_timeout(config)
    # Safe to repeat: the execution id is the write's idempotency key.
    run = partial(
        runtime.svcdb.run,
        company_id=task.company_id,
        table_id=table_id,
        write_id=task.execution_id,
        operation=operation,
        limit_seconds=timeout,
    )
    outcome = await runtime.until_db(run, "svcdb operation")
    if outcome is None:
        return HandlerOutcome(ok=False, error=f"Target table {table_id} not found", retryable=False)
    return outcome
