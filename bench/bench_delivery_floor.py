"""The floor of a webhook delivery's CPU: what the parts no delivery can skip cost, each alone.

bench_webhook_load.py measures the whole stack's CPU per delivery (ingress + worker + broker) against a bare
FastAPI endpoint answering 202. This bench measures the parts of that path that no implementation on this
stack can leave out, each in a process of its own, with the libraries and settings the service uses, at the
same open-loop rate (``--rate``) for the same window (``--seconds``, after a ``--warmup`` not counted):

1. bare: bench_webhook_load's bare endpoint (FastAPI under uvicorn, as it serves it), driven by its load
   generator with the client it would choose; CPU of the server per request. The baseline. 2. handler call:
   sinks/handlers.py's ``HandlerInvoker`` (its one aiohttp session, connector and timeout) posting a
   delivery's request (core/webhooks/handler_request.py: ids and three variables) with its traceparent to
   bench_webhook_load's recording handler, on uvloop as the worker runs; CPU of the calling process per call.
   The handler's own CPU is shown apart, not in the floor. 3. kafka produce: sinks/kafka.py's ``Publisher``
   (acks=all, no linger, sticky partitioner, paced delivery topic) sending encoded ``DeliveryTask`` records
   with the ingress's traceparent header, one send_and_wait per request, concurrently as requests come, on
   uvloop as the ingress runs; CPU of the producer per record. 4. kafka consume: an AIOKafkaConsumer
   configured as Faust configures the worker's (the settings of streams/app.py, the adaptive fetch wait of
   sinks/embedded_broker/fetch_wait.py) reading those records as they arrive and committing as Faust does
   (every ``broker_commit_every`` records or ``broker_commit_interval``); CPU per record. Faust's own
   machinery (its consumer thread, streams and acks) is left out. 5. broker: the embedded broker, started as
   sinks/embedded_broker/process.py starts it, with the delivery topic created by sinks/kafka.py's
   ``ensure_topics`` (the service's partitions, or ``--partitions``); CPU per record over the produce window.

The processes that drive a part read their own CPU at the window's edges; the others (servers, broker,
consumer) are read by a sampler over the window the driver timed. All from /proc, in 10 ms ticks. The floor
is the sum of the five; its ratio to the bare endpoint is the lowest the stack's CPU per delivery can go
with these libraries, before any database write, transform or bookkeeping. Figures are printed, never
asserted.

    .venv/bin/python bench/bench_delivery_floor.py               # about a minute and a half
    .venv/bin/python bench/bench_delivery_floor.py --rate 500 --seconds 30 --partitions 4

Internal roles (started by the benchmark itself): ``call``, ``produce`` and ``consume``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _common import REPO, cpu_seconds, free_port, percentiles, progress
from bench_webhook_load import (
    TRIGGER,
    WEBHOOK_CONFIG,
    Generator,
    body_for,
    choose_client,
    helper_server,
    on_schedule,
    probe_generators,
    summarise,
)

if TYPE_CHECKING:
    from schemas.settings import Settings

# bench_webhook_load's default pool: the bare endpoint sees the connections it sees there.
CONNECTIONS = 256
SAMPLE_SECONDS = 0.02
CALL_TIMEOUT_SECONDS = float(WEBHOOK_CONFIG["executionSettings"]["timeoutSeconds"])
PRODUCE_LIMIT_SECONDS = 10.0  # Publisher's default timeout, which publish_record sends with
# The consumer stops this long after the last record it read (or once it has read every record sent).
CONSUME_IDLE_SECONDS = 5.0
# bench_webhook_load's webhook: a TOOL whose variables are three values its JSONPath transform picks.
EXECUTION: dict[str, Any] = {
    "resourceType": "TOOL",
    "resourceId": "0" * 32,
    "variables": {"order": "@@{orderId}", "total": "@@{total}", "email": "@@{email}"},
}


# ---------------------------------------------------------------------------------------------------------
# Driving a part: open loop, one task per send, its own CPU read at the window's edges


async def paced(
    send: Callable[[int], Awaitable[bool]], rate: float, warmup: float, seconds: float
) -> dict[str, Any]:
    """``send(i)`` on a fixed schedule whatever the answers do, each in a task of its own (as the ingress and
    the worker run each request and delivery). Leaner than bench_webhook_load's generator (no wait_for task
    and no sample row per send): here the sender's CPU is the figure."""
    loop = asyncio.get_running_loop()
    total = round((warmup + seconds) * rate)
    interval = 1.0 / rate
    start = loop.time() + 0.2
    wall_offset = time.time() - loop.time()
    outcomes: Counter[str] = Counter()
    latencies = [0.0] * total
    marks: list[float] = []
    ended = loop.create_future()

    def mark(last: bool) -> None:
        marks.append(cpu_seconds(os.getpid()))
        if last:
            ended.set_result(None)

    async def one(index: int, scheduled: float) -> None:
        try:
            outcomes["ok" if await send(index) else "failed"] += 1
        except Exception as exc:
            outcomes[type(exc).__name__] += 1
        latencies[index] = (loop.time() - scheduled) * 1000

    loop.call_at(start + warmup, mark, False)
    loop.call_at(start + warmup + seconds, mark, True)
    await on_schedule(one, total, start, interval)
    await ended  # the last sends may be answered before the window's end
    first = round(warmup * rate)
    window = percentiles(latencies[first:])
    return {
        "windowStart": start + warmup + wall_offset,
        "windowEnd": start + warmup + seconds + wall_offset,
        "units": total - first,
        "cpuSeconds": marks[1] - marks[0],
        "outcomes": dict(outcomes),
        "latencyMs": [window.p50, window.p99],
    }


def run_on_uvloop(work: Coroutine[Any, Any, dict[str, Any]], out: str) -> None:
    """The worker and the ingress both run on uvloop (svc/roles.py)."""
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    Path(out).write_text(json.dumps(asyncio.run(work)))


def floor_settings(bootstrap: str, data_dir: Path, partitions: int | None = None) -> Settings:
    """The service's settings on their defaults (``main`` drops inherited SVC_* variables)."""
    from schemas.settings import Settings

    settings = Settings(kafka_bootstrap=bootstrap, data_dir=data_dir)
    if partitions is None:
        return settings
    return settings.model_copy(update={"delivery_topic_partitions": partitions})


# ---------------------------------------------------------------------------------------------------------
# Role: the handler call (what the worker pays per delivery)


def delivery_request(index: int, webhook_id: str) -> dict[str, Any]:
    """The request the worker posts for bench_webhook_load's body ``index``."""
    from core.webhooks.handler_request import build_request
    from schemas.ids import new_id

    body = json.loads(body_for(index))
    variables = {
        "orderId": body["order"]["id"],
        "total": body["order"]["total"],
        "email": body["customer"]["email"],
    }
    return build_request(EXECUTION, variables, execution_id=new_id(), attempt_number=1, webhook_id=webhook_id)


def traceparent() -> str:
    from core.tracing import TraceContext, new_span_id, new_trace_id

    return TraceContext(new_trace_id(), new_span_id()).traceparent


async def call_handler(args: argparse.Namespace) -> dict[str, Any]:
    from schemas.ids import new_id
    from sinks.handlers import HandlerInvoker

    total = round((args.warmup + args.seconds) * args.rate)
    webhook_id = new_id()
    # Built before the run: the request's making is the worker's bookkeeping, not the call.
    requests = [delivery_request(index, webhook_id) for index in range(total)]
    parents = [traceparent() for _ in range(total)]
    invoker = HandlerInvoker(None)

    async def send(index: int) -> bool:
        outcome = await invoker.invoke(args.url, requests[index], CALL_TIMEOUT_SECONDS, parents[index])
        return outcome.ok

    try:
        result = await paced(send, args.rate, args.warmup, args.seconds)
    finally:
        await invoker.stop()
    return result | {"bodyBytes": len(json.dumps(requests[0]).encode())}


# ---------------------------------------------------------------------------------------------------------
# Role: the produce (what the ingress pays per trigger)


def sized(value: bytes, size: int | None) -> bytes:
    """``value`` cut or padded with spaces (a JSON document may end in white space) to ``size`` bytes."""
    return value if size is None else value[:size].ljust(size, b" ")


async def produce_records(args: argparse.Namespace) -> dict[str, Any]:
    from core.tracing import HEADER
    from schemas.ids import new_id
    from schemas.records import DeliveryTask, encode
    from schemas.topics import WEBHOOK_DELIVERIES
    from sinks.kafka import Publisher

    settings = floor_settings(args.bootstrap, Path(args.data_dir))
    total = round((args.warmup + args.seconds) * args.rate)
    company_id, webhook_id = new_id(), new_id()
    # Encoded before the run, as publish_record encodes before it sends: the send is the part measured.
    values = [
        sized(
            encode(
                DeliveryTask(
                    entry_id=new_id(),
                    execution_id=new_id(),
                    webhook_id=webhook_id,
                    company_id=company_id,
                    attempt_number=1,
                )
            ),
            args.record_bytes,
        )
        for _ in range(total)
    ]
    headers = [[(HEADER, traceparent().encode())] for _ in range(total)]
    topic = settings.topic(WEBHOOK_DELIVERIES)
    publisher = Publisher(settings)
    await publisher.start()

    async def send(index: int) -> bool:
        # As publish_record sends a delivery: no key, so records sent together share a partition.
        await publisher.send(
            topic, values[index], key=None, limit_seconds=PRODUCE_LIMIT_SECONDS, headers=headers[index]
        )
        return True

    try:
        result = await paced(send, args.rate, args.warmup, args.seconds)
    finally:
        await publisher.stop()
    return result | {"recordBytes": len(values[0]), "pacedTopics": publisher.paced_topics}


# ---------------------------------------------------------------------------------------------------------
# Role: the consume (what the worker's consumer pays per delivery)


@dataclass(frozen=True)
class ConsumerShape:
    options: dict[str, Any]
    fetch_wait: Any  # sinks.embedded_broker.fetch_wait.FetchWait
    commit_every: int
    commit_interval: float


def worker_consumer_shape(settings: Settings) -> ConsumerShape:
    """The options Faust gives the worker's AIOKafkaConsumer (its ``_create_worker_consumer``), read from the
    app streams/app.py builds, with that app's adaptive fetch wait."""
    from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

    from streams.app import create_app

    app = create_app(settings)
    conf = app.conf
    options = {
        "client_id": conf.broker_client_id,
        "group_id": conf.id,
        "partition_assignment_strategy": [RoundRobinPartitionAssignor],
        "enable_auto_commit": False,
        "auto_offset_reset": conf.consumer_auto_offset_reset,
        "max_poll_records": conf.broker_max_poll_records,
        "max_poll_interval_ms": int((conf.broker_max_poll_interval or 0) * 1000),
        "max_partition_fetch_bytes": conf.consumer_max_fetch_size,
        "fetch_max_wait_ms": 1500,  # Faust's, replaced by the adaptive wait
        "request_timeout_ms": int(conf.broker_request_timeout * 1000),
        "check_crcs": conf.broker_check_crcs,
        "session_timeout_ms": int(conf.broker_session_timeout * 1000),
        "rebalance_timeout_ms": int(conf.broker_rebalance_timeout * 1000),
        "heartbeat_interval_ms": int(conf.broker_heartbeat_interval * 1000),
        "isolation_level": "read_uncommitted",
        "metadata_max_age_ms": conf.consumer_metadata_max_age_ms,
        "connections_max_idle_ms": conf.consumer_connections_max_idle_ms,
    }
    return ConsumerShape(
        options=options,
        fetch_wait=app.svc_fetch_wait,  # type: ignore[attr-defined]
        commit_every=int(conf.broker_commit_every),
        commit_interval=float(conf.broker_commit_interval),
    )


async def consume_records(args: argparse.Namespace) -> dict[str, Any]:
    from aiokafka import AIOKafkaConsumer

    from schemas.topics import WEBHOOK_DELIVERIES
    from sinks.embedded_broker.fetch_wait import adapt
    from svc import patches

    settings = floor_settings(args.bootstrap, Path(args.data_dir))
    # The worker's patches of aiokafka's fetcher: the adaptive fetch wait needs them.
    patches.apply(tuple(patch for patch in patches.WORKER_PATCHES if patch.distribution == "aiokafka"))
    shape = worker_consumer_shape(settings)
    consumer = AIOKafkaConsumer(bootstrap_servers=args.bootstrap, **shape.options)
    adapt(consumer, shape.fetch_wait)
    await consumer.start()
    loop = asyncio.get_running_loop()
    batches: list[tuple[float, int]] = []
    lags_ms: list[float] = []
    commits = pending = received = 0
    try:
        consumer.subscribe([settings.topic(WEBHOOK_DELIVERIES)])
        deadline = loop.time() + 60
        while not consumer.assignment():
            if loop.time() > deadline:
                raise RuntimeError("the consumer got no partitions within 60 s")
            await consumer.getmany(timeout_ms=100)
        assigned = len(consumer.assignment())
        await asyncio.to_thread(Path(args.ready).write_text, str(assigned))
        committed_at = last_record = loop.time()
        deadline = loop.time() + args.timeout
        while received < args.expect and loop.time() < deadline:
            if received and loop.time() - last_record > CONSUME_IDLE_SECONDS:
                break
            answer = await consumer.getmany(timeout_ms=1000)
            now_wall = time.time()
            count = 0
            for records in answer.values():
                count += len(records)
                lags_ms.extend(now_wall * 1000 - record.timestamp for record in records)
            if count:
                batches.append((now_wall, count))
                received += count
                pending += count
                last_record = loop.time()
            # Faust commits every commit_every acked records and on a commit_interval timer.
            if pending and (
                pending >= shape.commit_every or loop.time() - committed_at >= shape.commit_interval
            ):
                await consumer.commit()
                commits += 1
                pending = 0
                committed_at = loop.time()
    finally:
        await consumer.stop()
    lag = percentiles(lags_ms) if len(lags_ms) >= 2 else None
    return {
        "batches": batches,
        "received": received,
        "commits": commits,
        "partitions": assigned,
        "lagMs": [lag.p50, lag.p99] if lag is not None else None,
        "commitEvery": shape.commit_every,
        "commitInterval": shape.commit_interval,
    }


# ---------------------------------------------------------------------------------------------------------
# The benchmark


class CpuTrace:
    """CPU time of long-lived processes, sampled by a thread every SAMPLE_SECONDS, so the CPU inside a
    window another process timed (by the wall clock) can be read afterwards. The processes must outlive the
    windows read (a process gone reads 0)."""

    def __init__(self, pids: dict[str, int]) -> None:
        self._pids = pids
        self._times: list[float] = []
        self._cpu: dict[str, list[float]] = {name: [] for name in pids}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> CpuTrace:
        self._take()
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._take()

    def _take(self) -> None:
        self._times.append(time.time())
        for name, pid in self._pids.items():
            self._cpu[name].append(cpu_seconds(pid))

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self._take()

    def _at(self, name: str, moment: float) -> float:
        times, cpu = self._times, self._cpu[name]
        if not times[0] <= moment <= times[-1]:
            raise ValueError(f"{moment} is outside the trace of {name}")
        right = bisect.bisect_left(times, moment)
        if right == 0 or times[right] == moment:
            return cpu[right]
        share = (moment - times[right - 1]) / (times[right] - times[right - 1])
        return cpu[right - 1] + (cpu[right] - cpu[right - 1]) * share

    def cpu(self, name: str, start: float, end: float) -> float:
        return self._at(name, end) - self._at(name, start)


@dataclass(frozen=True)
class Part:
    name: str
    unit: str
    cpu_seconds: float
    units: int
    detail: str
    in_floor: bool = True

    @property
    def ms_per_unit(self) -> float:
        return self.cpu_seconds / max(self.units, 1) * 1000


def driver(role: str, options: list[str], tmp: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """A driving role of this file as a child that dies with the benchmark; its answer comes in a file."""
    from svc.children import spawn

    out = tmp / f"{role}.json"
    command = [sys.executable, __file__, role, *options, "--out", str(out)]
    return spawn(command, log_path=tmp / f"{role}.log"), out


def log_tail(path: Path, lines: int = 20) -> str:
    """The end of a driver's log: the run's directory is gone once the benchmark ends."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def answer(role: str, process: subprocess.Popen[bytes], out: Path, timeout: float) -> dict[str, Any]:
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"{role} did not finish within {timeout:.0f} s") from exc
    if process.returncode != 0:
        raise RuntimeError(f"{role} exited with {process.returncode}:\n{log_tail(out.with_suffix('.log'))}")
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def window_options(args: argparse.Namespace) -> list[str]:
    return ["--rate", str(args.rate), "--warmup", str(args.warmup), "--seconds", str(args.seconds)]


def outcome_text(outcomes: dict[str, int]) -> str:
    failed = {name: count for name, count in outcomes.items() if name != "ok"}
    return ", ".join(f"{name} {count}" for name, count in sorted(failed.items())) or "no failures"


def measure_bare(args: argparse.Namespace, tmp: Path) -> Part:
    with helper_server("bare", tmp) as (url, pid):
        progress(f"bare FastAPI endpoint at {url}; probing the generator's capacity")
        probes = probe_generators(url, CONNECTIONS, tmp)
        client = choose_client("auto", probes, args.rate, CONNECTIONS)
        progress(f"bare: {client} client, {CONNECTIONS} connections, {args.rate:,.0f}/s")
        generator = Generator(client, CONNECTIONS, tmp)
        with CpuTrace({"bare": pid}) as trace:
            result = generator.run(
                url,
                f"{TRIGGER}?resourceId={'0' * 32}",
                "",
                rate=args.rate,
                warmup=args.warmup,
                seconds=args.seconds,
                closed=False,
            )
    step = summarise("bare", result)
    start = float(result["startWall"]) + args.warmup
    units = sum(1 for sample in result["samples"] if args.warmup <= sample[0] < args.warmup + args.seconds)
    errors = ", ".join(f"{name} {count}" for name, count in sorted(step.errors.items())) or "no failures"
    return Part(
        "bare FastAPI 202",
        "request",
        trace.cpu("bare", start, start + args.seconds),
        units,
        f"{client} client; achieved {step.achieved:,.0f}/s, p50/p95/p99 {step.latency} ms; {errors}",
    )


def measure_call(args: argparse.Namespace, tmp: Path) -> list[Part]:
    from svc.children import stop_together

    with helper_server("handler", tmp) as (url, handler_pid):
        process, out = driver("call", ["--url", f"{url}/run", *window_options(args)], tmp)
        try:
            with CpuTrace({"handler": handler_pid}) as trace:
                result = answer("call", process, out, args.warmup + args.seconds + 120)
        finally:
            stop_together({"call": process}, timeout_seconds=15)
    start, end = result["windowStart"], result["windowEnd"]
    latency = "/".join(f"{value:.1f}" for value in result["latencyMs"])
    detail = f"{result['bodyBytes']} byte body; p50/p99 {latency} ms; {outcome_text(result['outcomes'])}"
    return [
        Part("handler call (client)", "call", result["cpuSeconds"], result["units"], detail),
        Part(
            "handler server",
            "call",
            trace.cpu("handler", start, end),
            result["units"],
            "bench_webhook_load's recording handler; not in the floor",
            in_floor=False,
        ),
    ]


def measure_kafka(args: argparse.Namespace, tmp: Path) -> list[Part]:
    from schemas.topics import WEBHOOK_DELIVERIES
    from sinks.embedded_broker import process as broker
    from sinks.kafka_admin import ensure_topics
    from svc.children import stop_together

    port = free_port()
    bootstrap = f"127.0.0.1:{port}"
    settings = floor_settings(bootstrap, tmp / "data", args.partitions)
    processes = {"broker": broker.start_tansu(port, tmp / "broker.log")}
    try:
        broker.wait_reachable(bootstrap, 30, processes["broker"])
        asyncio.run(ensure_topics(settings, [WEBHOOK_DELIVERIES]))
        partitions = settings.partitions(WEBHOOK_DELIVERIES)
        progress(
            f"embedded broker at {bootstrap}; {settings.topic(WEBHOOK_DELIVERIES)}: {partitions} partitions"
        )
        total = round((args.warmup + args.seconds) * args.rate)
        common = ["--bootstrap", bootstrap, "--data-dir", str(tmp / "data")]
        ready = tmp / "consume.ready"
        timeout = args.warmup + args.seconds + 60
        processes["consume"], consume_out = driver(
            "consume",
            [*common, "--expect", str(total), "--timeout", str(timeout), "--ready", str(ready)],
            tmp,
        )
        deadline = time.monotonic() + 90
        while not ready.exists():
            if processes["consume"].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the consumer did not join its group:\n{log_tail(tmp / 'consume.log')}")
            time.sleep(0.05)
        progress(f"consumer has its {ready.read_text()} partitions; producing {args.rate:,.0f}/s")
        options = [*common, *window_options(args)]
        if args.record_bytes is not None:
            options += ["--record-bytes", str(args.record_bytes)]
        processes["produce"], produce_out = driver("produce", options, tmp)
        pids = {"broker": processes["broker"].pid, "consume": processes["consume"].pid}
        with CpuTrace(pids) as trace:
            produced = answer("produce", processes["produce"], produce_out, timeout + 60)
            consumed = answer("consume", processes["consume"], consume_out, timeout + 60)
    finally:
        stop_together(processes, timeout_seconds=15)
    start, end = produced["windowStart"], produced["windowEnd"]
    latency = "/".join(f"{value:.1f}" for value in produced["latencyMs"])
    paces = ", ".join(f"{topic} {pace * 1000:g} ms" for topic, pace in produced["pacedTopics"].items())
    in_window = sum(count for moment, count in consumed["batches"] if start <= moment <= end)
    lag = "/".join(f"{value:.1f}" for value in consumed["lagMs"] or [])
    return [
        Part(
            "kafka produce",
            "record",
            produced["cpuSeconds"],
            produced["units"],
            f"{produced['recordBytes']} byte records, paced {paces}; ack p50/p99 {latency} ms; "
            f"{outcome_text(produced['outcomes'])}",
        ),
        Part(
            "kafka consume",
            "record",
            trace.cpu("consume", start, end),
            in_window,
            f"read {consumed['received']:,}/{total:,} from {consumed['partitions']} partitions, lag p50/p99 "
            f"{lag} ms; {consumed['commits']} commits (every {consumed['commitEvery']} records or "
            f"{consumed['commitInterval']:g} s)",
        ),
        Part(
            "broker (embedded)",
            "record",
            trace.cpu("broker", start, end),
            produced["units"],
            f"{partitions} partitions, produce window",
        ),
    ]


def report(parts: list[Part], args: argparse.Namespace, load_before: float, load_after: float) -> None:
    bare = parts[0].ms_per_unit
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {load_before:.2f} before the run, "
        f"{load_after:.2f} at its end (the run itself adds one or two)"
    )
    print(
        f"each part alone at {args.rate:,.0f}/s, open loop, {args.warmup:g} s warm-up + {args.seconds:g} s "
        "window; CPU from /proc (10 ms ticks) over the window, per unit sent in it"
    )
    print()
    header = f"{'part':<24} {'unit':<8} {'units':>7} {'CPU/unit ms':>12} {'vs bare':>8} | detail"
    print(header)
    print("-" * len(header))
    for part in parts:
        name = part.name if part.in_floor else f"({part.name})"
        print(
            f"{name:<24} {part.unit:<8} {part.units:>7,} {part.ms_per_unit:>12.3f} "
            f"{part.ms_per_unit / bare:>7.2f}x | {part.detail}"
        )
    floor = sum(part.ms_per_unit for part in parts if part.in_floor)
    print("-" * len(header))
    print(f"{'floor (sum of the parts)':<41} {floor:>12.3f} {floor / bare:>7.2f}x")
    print("(the handler's own CPU, in parentheses, is not in the floor)")
    print()
    print(
        f"a delivery path of this stack cannot cost less than {floor / bare:.2f}x the bare endpoint, "
        "before any database write, transform or bookkeeping"
    )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=float, default=1000.0, help="requests, calls or records per second")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured window per part")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up at the same rate, not counted")
    parser.add_argument(
        "--record-bytes",
        type=int,
        default=None,
        help="Kafka record value size (default: an encoded DeliveryTask as it is, some 300 bytes)",
    )
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="partitions of the delivery topic (default: the service's default for it)",
    )
    roles = parser.add_subparsers(dest="role")
    call = roles.add_parser("call", help="(internal) the handler call")
    call.add_argument("--url", required=True)
    produce = roles.add_parser("produce", help="(internal) the produce")
    consume = roles.add_parser("consume", help="(internal) the consume")
    for role in (call, produce, consume):
        role.add_argument("--out", required=True)
    for role in (call, produce):
        role.add_argument("--rate", type=float, required=True)
        role.add_argument("--warmup", type=float, required=True)
        role.add_argument("--seconds", type=float, required=True)
    for role in (produce, consume):
        role.add_argument("--bootstrap", required=True)
        role.add_argument("--data-dir", required=True)
    produce.add_argument("--record-bytes", type=int, default=None)
    consume.add_argument("--expect", type=int, required=True)
    consume.add_argument("--timeout", type=float, required=True)
    consume.add_argument("--ready", required=True)
    return parser.parse_args()


ROLES: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, dict[str, Any]]]] = {
    "call": call_handler,
    "produce": produce_records,
    "consume": consume_records,
}


def main() -> int:
    args = _arguments()
    # This process and its children import the checkout they run from.
    sys.path.insert(0, str(REPO))
    # Inherited SVC_* variables would change the settings the parts are measured with, here and in children.
    for key in [key for key in os.environ if key.startswith("SVC_")]:
        del os.environ[key]
    if args.role in ROLES:
        run_on_uvloop(ROLES[args.role](args), args.out)
        return 0
    if args.rate <= 0 or args.seconds <= 0 or args.warmup < 0 or (args.partitions or 1) < 1:
        print(
            "--rate, --seconds and --partitions need positive numbers, --warmup zero or more", file=sys.stderr
        )
        return 2
    # Anything else running on the 2 cores skews every number; the load averages make that visible.
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-delivery-floor-", ignore_cleanup_errors=True) as name:
        tmp = Path(name)
        parts = [measure_bare(args, tmp)]
        progress(f"bare: {parts[0].ms_per_unit:.3f} ms per request; the handler call next")
        parts += measure_call(args, tmp)
        progress(f"handler call: {parts[1].ms_per_unit:.3f} ms per call; produce and consume next")
        parts += measure_kafka(args, tmp)
    load_after = os.getloadavg()[0]
    report(parts, args, load_before, load_after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
