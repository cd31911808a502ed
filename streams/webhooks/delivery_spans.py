"""The worker's spans of one delivery attempt: the queue wait (recorded → claimed) and the handler call, both
children of the ingress span the delivery was recorded under (core/tracing.py, sinks/telemetry.py)."""

from __future__ import annotations

from typing import Any

from core.tracing import TraceContext
from schemas.deliveries import HandlerOutcome
from sinks.db.webhooks.delivery_attempts import Attempt
from sinks.telemetry import Spans, now_ns


def _ns(moment: Any) -> int:
    return int(moment.timestamp() * 1_000_000_000)


def attempt_spans(
    spans: Spans,
    attempt: Attempt,
    ingress: TraceContext,
    span: TraceContext,
    called_ns: int,
    outcome: HandlerOutcome,
    execution: dict[str, Any],
) -> None:
    """``span`` is the handler call's own (its id went to the handler in ``traceparent``)."""
    task = attempt.task
    attributes: dict[str, str | int | bool] = {
        "svc.company_id": task.company_id,
        "svc.webhook_id": task.webhook_id,
        "svc.execution_id": task.execution_id,
        "svc.attempt_number": task.attempt_number,
    }
    if attempt.queued_at is not None:
        waited = (_ns(attempt.queued_at), _ns(attempt.started_at))
        spans.emit("webhook.queue", ingress.child(), ingress.span_id, *waited, attributes)
    attributes["svc.resource_type"] = str(execution.get("resourceType"))
    attributes["svc.resource_id"] = str(execution.get("resourceId"))
    spans.emit("webhook.handler", span, ingress.span_id, called_ns, now_ns(), attributes, error=outcome.error)
