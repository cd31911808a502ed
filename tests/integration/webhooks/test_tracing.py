"""Tracing of a delivery (issue 24): the caller's W3C ``traceparent`` (or a new trace) reaches the handler
call, the result record's headers and the history's traceId; with an OTLP endpoint set, the ingress and the
worker export the trigger, transform, queue and handler spans of that trace to it (a real OTLP/HTTP
receiver here, decoding what the SDK's exporter sends)."""

from __future__ import annotations

import asyncio
import gzip
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from schemas.settings import Settings
from schemas.topics import WEBHOOK_RESULTS
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.worker import Worker, worker_env
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler, tool_webhook, wait_for

pytestmark = pytest.mark.integration

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
CALLER = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"


@dataclass
class SpanSeen:
    name: str
    service: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]


@dataclass
class Collector:
    """An OTLP/HTTP traces receiver: every span posted to /v1/traces, decoded."""

    spans: list[SpanSeen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    def take(self, payload: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(payload)
        with self.lock:
            for resource in request.resource_spans:
                service = next(
                    (a.value.string_value for a in resource.resource.attributes if a.key == "service.name"),
                    "",
                )
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        self.spans.append(
                            SpanSeen(
                                name=span.name,
                                service=service,
                                trace_id=span.trace_id.hex(),
                                span_id=span.span_id.hex(),
                                parent_span_id=span.parent_span_id.hex(),
                                attributes={a.key: _value(a.value) for a in span.attributes},
                            )
                        )

    def of_trace(self, trace_id: str) -> list[SpanSeen]:
        with self.lock:
            return [span for span in self.spans if span.trace_id == trace_id]


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


@pytest.fixture
def collector() -> Iterator[Collector]:
    found = Collector()

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path == "/v1/traces":
                found.take(body)
                self.send_response(200)
            else:
                self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    found.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, collector: Collector) -> Settings:
    return make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, otlp_endpoint=collector.url)


class TracedWorker(Worker):
    def env(self) -> dict[str, str]:
        return {**worker_env(self.settings), "SVC_OTLP_ENDPOINT": self.settings.otlp_endpoint or ""}


@pytest.fixture
def worker(kafka_settings: Settings, ingress_db: Any, tmp_path: Path) -> Iterator[Worker]:
    running = TracedWorker(kafka_settings, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


def wait_until(check: Any, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("the condition did not hold in time")


def result_headers(settings: Settings, execution_id: str) -> list[dict[str, bytes]]:
    """The headers of every result record of ``execution_id`` (one per attempt)."""

    async def read() -> list[dict[str, bytes]]:
        consumer = AIOKafkaConsumer(
            settings.topic(WEBHOOK_RESULTS),
            bootstrap_servers=settings.kafka_bootstrap,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        await consumer.start()
        try:
            batches = await consumer.getmany(timeout_ms=3000)
        finally:
            await consumer.stop()
        return [
            dict(record.headers)
            for records in batches.values()
            for record in records
            if record.key == execution_id.encode()
        ]

    return asyncio.run(read())


def test_the_callers_trace_reaches_the_handler_the_result_record_the_history_and_the_collector(
    world: World,
    ingress: Ingress,
    worker: Worker,
    handler: RecordingHandler,
    collector: Collector,
    kafka_settings: Settings,
) -> None:
    handler.fail_first["*"] = 1  # the first attempt fails: the retry belongs to the same trace
    webhook_id, key = tool_webhook(
        world,
        register_handler(world, handler),
        executionSettings={"timeoutSeconds": 10, "maxRetries": 1, "retryDelaySeconds": 1},
    )
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "traceparent": CALLER},
        json={"order": {"id": "A-1"}},
    )
    assert answer.status_code == 202, answer.text
    execution_id = answer.json()["executionId"]
    version, trace_id, ingress_span, flags = answer.headers["traceresponse"].split("-")
    assert (version, trace_id, flags) == ("00", CALLER_TRACE, "01")
    assert ingress_span != CALLER_SPAN

    entries = wait_for(world, webhook_id, lambda es: any(e["status"] == "SUCCESS" for e in es))
    assert [e["executionDetails"]["traceId"] for e in entries] == [CALLER_TRACE, CALLER_TRACE]

    calls = [call["headers"]["traceparent"].split("-") for call in handler.calls]
    assert len(calls) == 2
    assert all(call[1] == CALLER_TRACE and call[3] == "01" for call in calls)
    handler_spans = {call[2] for call in calls}
    assert len(handler_spans) == 2 and ingress_span not in handler_spans  # a span per attempt

    records = wait_until(lambda: len(result_headers(kafka_settings, execution_id)) == 2)
    assert records
    results = result_headers(kafka_settings, execution_id)
    assert {h["traceparent"].decode().split("-")[2] for h in results} == handler_spans

    def all_spans() -> list[SpanSeen] | None:
        spans = collector.of_trace(CALLER_TRACE)
        names = sorted(span.name for span in spans)
        wanted = ["webhook.handler"] * 2 + ["webhook.queue"] * 2 + ["webhook.transform", "webhook.trigger"]
        return spans if names == wanted else None

    spans = wait_until(all_spans)
    trigger = next(span for span in spans if span.name == "webhook.trigger")
    assert (trigger.span_id, trigger.parent_span_id, trigger.service) == (
        ingress_span,
        CALLER_SPAN,
        "svc-ingress",
    )
    assert trigger.attributes["svc.execution_id"] == execution_id
    assert trigger.attributes["http.response.status_code"] == 202
    for span in spans:
        if span is not trigger:
            assert span.parent_span_id == ingress_span
    workers = [span for span in spans if span.name in ("webhook.queue", "webhook.handler")]
    assert {span.service for span in workers} == {"svc-worker"}
    assert {span.span_id for span in spans if span.name == "webhook.handler"} == handler_spans
    assert sorted(span.attributes["svc.attempt_number"] for span in workers) == [1, 1, 2, 2]


def test_a_missing_or_invalid_traceparent_starts_a_new_trace(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    traces = []
    for sent in (None, "00-" + "0" * 32 + "-00f067aa0ba902b7-01", "garbage", CALLER.upper()):
        headers = {"Authorization": key, **({"traceparent": sent} if sent else {})}
        answer = ingress.client.post(TRIGGER, params={"resourceId": webhook_id}, headers=headers, json={})
        assert answer.status_code == 202, answer.text
        traces.append(answer.headers["traceresponse"].split("-")[1])
    assert len(set(traces)) == 4 and CALLER_TRACE not in traces and "0" * 32 not in traces
    entries = wait_for(world, webhook_id, lambda es: sum(e["status"] == "SUCCESS" for e in es) == 4)
    assert sorted(e["executionDetails"]["traceId"] for e in entries) == sorted(traces)
    assert sorted(call["headers"]["traceparent"].split("-")[1] for call in handler.calls) == sorted(traces)
