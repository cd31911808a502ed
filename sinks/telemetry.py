"""OpenTelemetry spans of webhook deliveries, exported over OTLP/HTTP when ``SVC_OTLP_ENDPOINT`` is set.

The spans carry the ids of core/tracing.py (the ones already sent downstream in ``traceparent``), so they are
built as finished spans and handed to the SDK's batch processor, which exports them from its own thread:
the event loop never waits on the collector, and a collector that is down costs dropped spans (the
processor's queue is bounded), never a delivery. With no endpoint, ``Spans.enabled`` is false, the SDK is
never imported and every call site skips its span: tracing costs the ids alone.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.tracing import TraceContext

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

log = logging.getLogger(__name__)
SCOPE = "svc"


def now_ns() -> int:
    return time.time_ns()


class Spans:
    """One process's span exporter (or none); ``service`` names the process role in the spans' resource."""

    def __init__(self, endpoint: str | None, *, service: str, timeout_seconds: float = 5.0) -> None:
        self.enabled = endpoint is not None
        self._processor: BatchSpanProcessor | None = None
        self._resource: Any = None
        self._scope: Any = None
        if endpoint is not None:
            self._start(endpoint, service, timeout_seconds)

    def _start(self, endpoint: str, service: str, timeout_seconds: float) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout_seconds)
        self._processor = BatchSpanProcessor(exporter, schedule_delay_millis=500)
        self._resource = Resource.create({"service.name": service})
        self._scope = InstrumentationScope(SCOPE)

    def emit(
        self,
        name: str,
        span: TraceContext,
        parent_span_id: str | None,
        start_ns: int,
        end_ns: int,
        attributes: Mapping[str, str | int | bool] | None = None,
        *,
        error: str | None = None,
        server: bool = False,
    ) -> None:
        """Queue one finished span for export; nothing when tracing is off."""
        if self._processor is None:
            return
        from opentelemetry.sdk.trace import ReadableSpan
        from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

        flags = TraceFlags(int(span.flags, 16))
        trace_id = int(span.trace_id, 16)
        context = SpanContext(trace_id, int(span.span_id, 16), is_remote=False, trace_flags=flags)
        parent = (
            None
            if parent_span_id is None
            else SpanContext(trace_id, int(parent_span_id, 16), is_remote=True, trace_flags=flags)
        )
        status = Status(StatusCode.ERROR, error) if error is not None else Status(StatusCode.UNSET)
        finished = ReadableSpan(
            name,
            context=context,
            parent=parent,
            resource=self._resource,
            attributes=dict(attributes or {}),
            kind=SpanKind.SERVER if server else SpanKind.INTERNAL,
            status=status,
            start_time=start_ns,
            end_time=max(start_ns, end_ns),
            instrumentation_scope=self._scope,
        )
        self._processor.on_end(finished)

    def shutdown(self) -> None:
        """Export what is queued (bounded by the exporter's timeout) and stop the processor's thread."""
        if self._processor is not None:
            try:
                self._processor.shutdown()  # type: ignore[no-untyped-call]
            except Exception:  # a collector that is away must not fail a shutdown
                log.warning("spans could not be exported at shutdown", exc_info=True)
            self._processor = None


_OFF = Spans(None, service=SCOPE)


def off() -> Spans:
    """The shared do-nothing instance (tests and processes without an endpoint)."""
    return _OFF
