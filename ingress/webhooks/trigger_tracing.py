"""The trigger's part of a delivery's trace (core/tracing.py): the ``traceresponse`` header of its answer and,
when spans are exported (sinks/telemetry.py), the ingress span and the transform span."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from core.tracing import TraceContext
from ingress.webhooks.trigger_clients import TriggerClients
from sinks.db.webhooks.deliveries import Delivery
from sinks.telemetry import now_ns


def traced(
    svc: TriggerClients,
    response: JSONResponse,
    delivery: Delivery,
    trace: TraceContext,
    caller_span: str | None,
    started_ns: int,
    transform_ns: tuple[int, int] | None = None,
) -> JSONResponse:
    """The answer with its ``traceresponse`` header (W3C Trace Context level 2: the trace this delivery
    belongs to and the ingress span); the ingress and transform spans when spans are exported."""
    response.headers["traceresponse"] = trace.traceparent
    if svc.spans.enabled:
        attributes: dict[str, str | int | bool] = {
            "svc.company_id": delivery.target.company_id,
            "svc.webhook_id": delivery.target.webhook_id,
            "svc.execution_id": delivery.execution_id,
            "http.request.method": delivery.http_method,
            "http.response.status_code": response.status_code,
        }
        if transform_ns is not None:
            svc.spans.emit(
                "webhook.transform",
                trace.child(),
                trace.span_id,
                *transform_ns,
                {"svc.transform_type": delivery.transform_type},
                error=delivery.transform_error,
            )
        svc.spans.emit("webhook.trigger", trace, caller_span, started_ns, now_ns(), attributes, server=True)
    return response
