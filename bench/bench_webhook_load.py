"""Open-loop load on the webhook trigger: achieved rate, latency of the 202 and lag to the handler.

The real stack runs as ``svc up``; the webhook's handler is a tiny HTTP server in its own process that notes
when each delivery arrives. The same load generator, in its own process, first drives a bare FastAPI
endpoint answering 202 (served by uvicorn exactly as the ingress is) and then the trigger, at a ladder of
constant rates. Requests leave on a fixed schedule whatever the answers do, and latency is counted from the
scheduled send time, so a slow server cannot hide its queueing (no coordinated omission). Times are
printed, never asserted.

Internal roles (started by the benchmark itself): ``handler``, ``bare`` and ``load``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import io
import json
import os
import pstats
import re
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator, MutableMapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

import httpx
from _common import (
    Percentiles,
    Stack,
    add_shape_arguments,
    cpu_seconds,
    free_port,
    percentiles,
    postgres_server_pid,
    progress,
    role_of,
    running_server,
    running_stack,
    shape_line,
    shape_postgres,
    shape_settings,
    stack_roles,
    tree_cpu_seconds,
)
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

BASE = "/svc_poweruser/custom-webhooks"
TRIGGER = "/clients/custom-webhooks"
TARGET_RATE = 1000.0
TARGET_P99_MS = 50.0
TARGET_LAG_P99_MS = 500.0
DELIVERY_GRACE_SECONDS = 60.0
# The handler resource's maxConcurrency: the worker's own concurrency (SVC_WORKER_CONCURRENCY), so this bench
# measures the pipeline, not the destination's limit (bench_destinations.py measures that).
MAX_CONCURRENCY = 256
# Long windows also report their p99s per slice of this length, to show whether a run drifts.
SLICE_SECONDS = 30.0
# Past this a request counts as failed ("timeout"); it also bounds how long an overloaded step drains.
REQUEST_TIMEOUT_SECONDS = 10.0
# A step "sustains" its rate when this share of the offered 202s per second came back inside the window.
SUSTAINED_SHARE = 0.99

# About 300 bytes, shaped like a shop's order event; the index keeps every body (and orderId) distinct.
BODY = (
    '{"event":"order.created","order":{"id":"ord_%010d","total":"%d.99","currency":"USD","items":2},'
    '"customer":{"id":"cus_%08d","email":"customer%d@shop.example","tier":"gold"},'
    '"shipping":{"method":"express","country":"US","postalCode":"%05d"},'
    '"metadata":{"channel":"web","campaign":"autumn-sale","session":"%032x"}}'
)
WEBHOOK_CONFIG: dict[str, Any] = {
    "name": "orders-load",
    "description": "Open-loop load benchmark",
    "payloadTransformConfig": {
        "transformType": "JSONPATH",
        "jsonPathMappings": {
            "orderId": "$.order.id",
            "total": "$.order.total",
            "email": "$.customer.email",
        },
    },
    "executionSettings": {"timeoutSeconds": 10, "maxRetries": 0, "retryDelaySeconds": 1},
}


def body_for(index: int) -> bytes:
    return (
        BODY % (index, 10 + index % 900, index, index, index % 100_000, (index * 2_654_435_761) % 2**128)
    ).encode()


# ---------------------------------------------------------------------------------------------------------
# Role: the recording handler


def serve_handler(port: int) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Route

    arrivals: list[tuple[str, float]] = []

    async def run(request: Request) -> Response:
        # Noted before the body is read: the lag ends when the worker's call reaches the handler.
        arrived = time.time()
        await request.body()
        arrivals.append((request.headers.get("x-svc-execution-id", ""), arrived))
        return Response(b'{"ok":true}', media_type="application/json")

    async def stats(_request: Request) -> JSONResponse:
        return JSONResponse({"count": len(arrivals)})

    async def records(request: Request) -> JSONResponse:
        since = int(request.query_params.get("since", "0"))
        return JSONResponse({"records": arrivals[since:]})

    app = Starlette(
        routes=[
            Route("/run", run, methods=["POST"]),
            Route("/stats", stats, methods=["GET"]),
            Route("/records", records, methods=["GET"]),
        ]
    )
    _serve(app, port)


# ---------------------------------------------------------------------------------------------------------
# Role: the bare baseline


def serve_bare(port: int) -> None:
    app = FastAPI()

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.post(TRIGGER, status_code=202)
    async def accept(request: Request) -> JSONResponse:
        # Reads the body and answers a body shaped like the trigger's, so the two differ only in the work.
        await request.body()
        return JSONResponse(
            {
                "success": True,
                "message": "Webhook received and queued for processing",
                "executionId": uuid.uuid4().hex,
                "webhookId": request.query_params.get("resourceId"),
                "errors": [],
            },
            status_code=202,
        )

    _serve(app, port)


def _serve(app: Any, port: int) -> None:
    import uvicorn

    # The settings the ingress runs with (svc/roles.py), so only the application differs.
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_config=None, access_log=False, server_header=False
    )
    uvicorn.Server(config).run()


# ---------------------------------------------------------------------------------------------------------
# Role: the load generator


class Client(Protocol):
    async def send(self, index: int) -> tuple[int, str | None]: ...

    async def close(self) -> None: ...


def _execution_id(status: int, body: bytes) -> str | None:
    # 200 too: a duplicate (Idempotency-Key seen before) answers the first delivery's executionId.
    if status not in (200, 202):
        return None
    value = json.loads(body).get("executionId")
    return str(value) if value else None


def idempotency_key(prefix: str, index: int) -> str:
    """The Idempotency-Key of request ``index`` of a run with ``--key-prefix``: a run with the same prefix
    and the same rate and times sends the same keys again (duplicates)."""
    return f"{prefix}-{index:010d}"


class HttpxClient:
    def __init__(
        self, url: str, path: str, auth: str, connections: int, key_prefix: str | None = None
    ) -> None:
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        self._client = httpx.AsyncClient(base_url=url, limits=limits, timeout=REQUEST_TIMEOUT_SECONDS)
        self._path = path
        self._headers = {"Content-Type": "application/json", **({"Authorization": auth} if auth else {})}
        self._key_prefix = key_prefix

    async def send(self, index: int) -> tuple[int, str | None]:
        headers = self._headers
        if self._key_prefix is not None:
            headers = {**headers, "Idempotency-Key": idempotency_key(self._key_prefix, index)}
        response = await self._client.post(self._path, content=body_for(index), headers=headers)
        return response.status_code, _execution_id(response.status_code, response.content)

    async def close(self) -> None:
        await self._client.aclose()


class ProtocolViolation(Exception):
    pass


class RawClient:
    """HTTP/1.1 with keep-alive over asyncio streams: a fraction of httpx's per-request CPU, so the
    generator stays far from saturation on a machine whose other core runs the server."""

    def __init__(
        self, url: str, path: str, auth: str, connections: int, key_prefix: str | None = None
    ) -> None:
        parts = urlsplit(url)
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or 80
        auth_line = f"Authorization: {auth}\r\n" if auth else ""
        self._head = (
            f"POST {path} HTTP/1.1\r\nHost: {self._host}:{self._port}\r\n"
            f"Content-Type: application/json\r\n{auth_line}"
        ).encode()
        self._key_prefix = key_prefix
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._slots = asyncio.Semaphore(connections)
        self._open: set[asyncio.StreamWriter] = set()

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(self._host, self._port)
        self._open.add(writer)
        return reader, writer

    async def send(self, index: int) -> tuple[int, str | None]:
        body = body_for(index)
        key = b""
        if self._key_prefix is not None:
            key = f"Idempotency-Key: {idempotency_key(self._key_prefix, index)}\r\n".encode()
        request = self._head + key + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        async with self._slots:
            reused = bool(self._idle)
            connection = self._idle.pop() if reused else await self._connect()
            try:
                status, payload, keep = await self._exchange(connection, request)
            except (asyncio.IncompleteReadError, ConnectionError):
                self._discard(connection)
                if not reused:
                    raise
                # The server closes keep-alive connections idle for 5 s; resend once on a fresh one.
                connection = await self._connect()
                status, payload, keep = await self._exchange(connection, request)
            except BaseException:
                self._discard(connection)
                raise
            if keep:
                self._idle.append(connection)
            else:
                self._discard(connection)
        return status, _execution_id(status, payload)

    @staticmethod
    async def _exchange(
        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], request: bytes
    ) -> tuple[int, bytes, bool]:
        reader, writer = connection
        writer.write(request)
        head = (await reader.readuntil(b"\r\n\r\n")).lower()
        status = int(head[9:12])
        start = head.find(b"\r\ncontent-length:")
        if start < 0:
            raise ProtocolViolation("a response without Content-Length")
        end = head.find(b"\r\n", start + 2)
        payload = await reader.readexactly(int(head[start + 17 : end]))
        return status, payload, b"\r\nconnection: close" not in head

    def _discard(self, connection: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
        writer = connection[1]
        self._open.discard(writer)
        writer.close()

    async def close(self) -> None:
        for writer in list(self._open):
            writer.close()
        self._open.clear()


CLIENTS: dict[str, type[HttpxClient] | type[RawClient]] = {"httpx": HttpxClient, "raw": RawClient}


async def on_schedule(
    one: Callable[[int, float], Coroutine[Any, Any, None]], total: int, start: float, interval: float
) -> None:
    """``one(index, scheduled)`` for each of ``total`` sends, each in a task of its own at ``start + index *
    interval`` (loop time) whatever the earlier ones do; returns once every one has ended. Everything due is
    started at once, so a late wake-up never lowers the offered rate."""
    loop = asyncio.get_running_loop()
    running: set[asyncio.Task[None]] = set()
    index = 0
    while index < total:
        now = loop.time()
        due = start + index * interval
        if due > now:
            await asyncio.sleep(due - now)
            now = loop.time()
        while index < total and due <= now:
            task = asyncio.create_task(one(index, due))
            running.add(task)
            task.add_done_callback(running.discard)
            index += 1
            due = start + index * interval
    if running:
        await asyncio.wait(set(running))


async def _open_loop(client: Client, rate: float, warmup: float, seconds: float) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    total = round((warmup + seconds) * rate)
    interval = 1.0 / rate
    samples: list[list[Any]] = [[] for _ in range(total)]
    loop_delays: list[float] = [0.0] * total
    start = loop.time() + 0.2
    start_wall = time.time() + (start - loop.time())

    async def one(index: int, scheduled: float) -> None:
        loop_delays[index] = loop.time() - scheduled
        execution_id: str | None = None
        try:
            status, execution_id = await asyncio.wait_for(client.send(index), REQUEST_TIMEOUT_SECONDS)
            outcome: int | str = status
        except TimeoutError:
            outcome = "timeout"
        except Exception as exc:
            outcome = type(exc).__name__
        done = loop.time() - start
        samples[index] = [scheduled - start, done, outcome, execution_id, start_wall + done]

    cpu_before = time.process_time()
    await on_schedule(one, total, start, interval)
    wall = loop.time() - start
    delays = sorted(loop_delays)
    return {
        "startWall": start_wall,
        "warmup": warmup,
        "seconds": seconds,
        "rate": rate,
        "samples": samples,
        "cpuSeconds": time.process_time() - cpu_before,
        "wallSeconds": wall,
        "loopDelayP99Ms": delays[int(len(delays) * 0.99) - 1] * 1000 if delays else 0.0,
        "loopDelayMaxMs": delays[-1] * 1000 if delays else 0.0,
    }


async def _closed_loop(client: Client, concurrency: int, warmup: float, seconds: float) -> dict[str, Any]:
    """As fast as ``concurrency`` senders go: the throughput ceiling of generator plus server."""
    loop = asyncio.get_running_loop()
    counter = iter(range(10**9))
    completed = 0
    failures = 0
    measuring = False
    stop_at = loop.time() + warmup + seconds

    async def sender() -> None:
        nonlocal completed, failures
        while loop.time() < stop_at:
            try:
                status, _ = await client.send(next(counter))
            except Exception:
                status = 0
            if measuring:
                completed += status == 202
                failures += status != 202

    senders = [asyncio.create_task(sender()) for _ in range(concurrency)]
    await asyncio.sleep(warmup)
    measuring = True
    cpu_before, wall_before = time.process_time(), loop.time()
    await asyncio.gather(*senders)
    return {
        "completed": completed,
        "failures": failures,
        "cpuSeconds": time.process_time() - cpu_before,
        "wallSeconds": loop.time() - wall_before,
    }


async def _generate(args: argparse.Namespace) -> dict[str, Any]:
    client: Client = CLIENTS[args.client](args.url, args.path, args.auth, args.connections, args.key_prefix)
    try:
        if args.closed:
            return await _closed_loop(client, args.connections, args.warmup, args.seconds)
        return await _open_loop(client, args.rate, args.warmup, args.seconds)
    finally:
        await client.close()


def generate(args: argparse.Namespace) -> None:
    result = asyncio.run(_generate(args))
    Path(args.out).write_text(json.dumps(result))


# ---------------------------------------------------------------------------------------------------------
# The benchmark


@dataclass(frozen=True)
class Generator:
    client: str
    connections: int
    out_dir: Path

    def run(
        self,
        url: str,
        path: str,
        auth: str,
        *,
        rate: float,
        warmup: float,
        seconds: float,
        closed: bool,
        key_prefix: str | None = None,
    ) -> dict[str, Any]:
        out = self.out_dir / f"load-{uuid.uuid4().hex}.json"
        command = [
            sys.executable,
            __file__,
            "load",
            "--url",
            url,
            "--path",
            path,
            "--auth",
            auth,
            "--client",
            self.client,
            "--connections",
            str(self.connections),
            "--rate",
            str(rate),
            "--warmup",
            str(warmup),
            "--seconds",
            str(seconds),
            "--out",
            str(out),
            *(["--closed"] if closed else []),
            *(["--key-prefix", key_prefix] if key_prefix is not None else []),
        ]
        done = subprocess.run(command, timeout=warmup + seconds + REQUEST_TIMEOUT_SECONDS + 60, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the load generator exited with {done.returncode}")
        result: dict[str, Any] = json.loads(out.read_text())
        out.unlink()
        return result


@dataclass
class Step:
    target: str
    rate: float
    seconds: float
    achieved: float
    latency: Percentiles | None
    errors: Counter[str]
    generator_cpu: float  # share of one core during the run
    loop_delay_p99_ms: float
    accepted: dict[str, float] = field(default_factory=dict)  # executionId -> wall time of its 202
    window_end_wall: float = 0.0
    lag: Percentiles | None = None
    delivered: int = 0
    handler_rate: float = 0.0
    drain_rate: float = 0.0
    cpu_ms_per_request: dict[str, float] = field(default_factory=dict)
    cpu_ms_per_delivery: dict[str, float] = field(default_factory=dict)
    handled: int = 0
    cpu_share: dict[str, float] = field(default_factory=dict)
    server_histogram: str = ""
    latency_by_offset: list[tuple[float, float]] = field(default_factory=list)  # (s into window, ms)
    lag_by_offset: list[tuple[float, float]] = field(default_factory=list)
    # Processes that were gone at the step's end (svc up restarted them, the embedded broker's renewal
    # say): their CPU over the step cannot be read, so the step's CPU figures are not valid.
    restarted: list[str] = field(default_factory=list)

    @property
    def accepted_count(self) -> int:
        return len(self.accepted)


def summarise(target: str, result: dict[str, Any]) -> Step:
    warmup, seconds = float(result["warmup"]), float(result["seconds"])
    window_end = warmup + seconds
    latencies: list[float] = []
    offsets: list[tuple[float, float]] = []
    errors: Counter[str] = Counter()
    accepted: dict[str, float] = {}
    achieved = 0
    for scheduled, done, outcome, execution_id, done_wall in result["samples"]:
        if outcome == 202 and warmup <= done <= window_end:
            achieved += 1
        if scheduled < warmup:
            continue
        if outcome == 202:
            latencies.append((done - scheduled) * 1000)
            offsets.append((scheduled - warmup, latencies[-1]))
            if execution_id:
                accepted[execution_id] = done_wall
        else:
            errors[str(outcome)] += 1
    return Step(
        target=target,
        rate=float(result["rate"]),
        seconds=seconds,
        achieved=achieved / seconds,
        latency=percentiles(latencies) if len(latencies) >= 2 else None,
        errors=errors,
        generator_cpu=float(result["cpuSeconds"]) / float(result["wallSeconds"]),
        loop_delay_p99_ms=float(result["loopDelayP99Ms"]),
        accepted=accepted,
        window_end_wall=float(result["startWall"]) + window_end,
        latency_by_offset=offsets,
    )


def probe_generators(url: str, connections: int, out_dir: Path) -> dict[str, dict[str, Any]]:
    """Closed-loop runs against the bare endpoint: how many requests per CPU-second each client costs.
    httpx is also tried with a small pool, since its pool gets slower as connections are added."""
    found: dict[str, dict[str, Any]] = {}
    for client, pool in (("httpx", 8), ("httpx", connections), ("raw", connections)):
        probe = Generator(client, pool, out_dir)
        result = probe.run(url, f"{TRIGGER}?resourceId=probe", "", rate=0, warmup=0.5, seconds=3, closed=True)
        label = f"{client} x{pool}"
        found[label] = result
        progress(
            f"  generator {label:>10}: {result['completed'] / result['wallSeconds']:,.0f} req/s closed-loop "
            f"against the bare endpoint, using {result['cpuSeconds'] / result['wallSeconds']:.0%} of a core "
            f"=> {_per_cpu(result):,.0f} requests per generator CPU-second"
        )
    return found


def _per_cpu(probe: dict[str, Any]) -> float:
    return float(probe["completed"]) / max(float(probe["cpuSeconds"]), 1e-9)


def choose_client(
    requested: str, probes: dict[str, dict[str, Any]], top_rate: float, connections: int
) -> str:
    if requested != "auto":
        return requested
    # httpx as it will run: with the step's pool (it slows down with many connections: 1,100 requests per
    # CPU-second with 8, 130 with 256), or, without that probe, as slow as any pool probed.
    httpx = {label: _per_cpu(probe) for label, probe in probes.items() if label.startswith("httpx")}
    per_cpu = httpx.get(f"httpx x{connections}", min(httpx.values()))
    # Half a core at the top rate leaves headroom: a saturated generator sends late and hides latency.
    return "httpx" if per_cpu >= 2 * top_rate else "raw"


# ------------------------------------------------------------------------------ svc: set-up and observation


def poweruser(client: httpx.Client, key: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(f"{BASE}/{action}", json=body, headers={"Authorization": key})
    if answer.status_code != 200:
        raise RuntimeError(f"{action} answered {answer.status_code}: {answer.text[:300]}")
    result: dict[str, Any] = answer.json()
    return result


def create_webhook(stack: Stack, handler_url: str, max_concurrency: int = MAX_CONCURRENCY) -> tuple[str, str]:
    """A company, the recording handler as its TOOL resource (at ``max_concurrency`` calls at once) and a
    webhook delivering to it; answers the webhook's id and key."""
    company = stack.admin("create-company", "--name", "Load Shop", "--admin-email", "admin@load.example")
    key, company_id = company["poweruserKey"], company["companyId"]
    resource = stack.admin(
        "create-resource",
        "--company-id",
        company_id,
        "--type",
        "TOOL",
        "--name",
        "load-recorder",
        "--endpoint",
        handler_url,
        "--max-concurrency",
        str(max_concurrency),
    )
    with httpx.Client(base_url=stack.url, timeout=30) as client:
        created = poweruser(client, key, "create", {"webhookConfig": {"name": WEBHOOK_CONFIG["name"]}})
        webhook_id, api_key = created["webhook"]["id"], created["apiKey"]
        config = {
            **WEBHOOK_CONFIG,
            "resourceExecutionConfig": {
                "resourceType": "TOOL",
                "resourceId": resource["resourceId"],
                "variables": {"order": "@@{orderId}", "total": "@@{total}", "email": "@@{email}"},
            },
        }
        poweruser(client, key, "update", {"webhookId": webhook_id, "webhookConfig": config})
    return str(webhook_id), str(api_key)


class Handler:
    def __init__(self, url: str) -> None:
        self._client = httpx.Client(base_url=url, timeout=30)

    def count(self) -> int:
        return int(self._client.get("/stats").json()["count"])

    def records(self, since: int) -> list[tuple[str, float]]:
        """(executionId, arrival wall time) of every call from the ``since``-th on, repeats included."""
        found = self._client.get("/records", params={"since": since}).json()["records"]
        return [(str(execution_id), float(arrived)) for execution_id, arrived in found]

    def arrivals(self, since: int) -> dict[str, float]:
        """First arrival per executionId (a re-dispatched delivery may arrive twice)."""
        first: dict[str, float] = {}
        for execution_id, arrived in self.records(since):
            first.setdefault(execution_id, arrived)
        return first

    def close(self) -> None:
        self._client.close()


HISTOGRAM_LINE = re.compile(
    r'^svc_http_request_seconds_(bucket|sum|count)\{(?=[^}]*method="POST")(?=[^}]*route="'
    + re.escape(TRIGGER)
    + r'")[^}]*?(?:le="([^"]+)")?[^}]*\}\s+(\S+)$'
)


def trigger_histogram(metrics_url: str) -> dict[str, float]:
    """The ingress's own timing of the trigger (middleware entry to exit): buckets, sum and count."""
    values: dict[str, float] = {}
    try:
        text = httpx.get(metrics_url, timeout=30).text
    except httpx.HTTPError:
        return values
    for line in text.splitlines():
        match = HISTOGRAM_LINE.match(line)
        if match:
            kind, bound, value = match.groups()
            values[f"le={bound}" if kind == "bucket" else kind] = float(value)
    return values


def histogram_summary(before: dict[str, float], after: dict[str, float]) -> str:
    count = after.get("count", 0) - before.get("count", 0)
    if count <= 0:
        return "no trigger requests recorded"
    mean_ms = (after.get("sum", 0) - before.get("sum", 0)) / count * 1000
    bounds = sorted(
        (float(name[3:]), after[name] - before.get(name, 0))
        for name in after
        if name.startswith("le=") and name != "le=+Inf"
    )

    def upper(share: float) -> str:
        for bound, cumulative in bounds:
            if cumulative >= share * count:
                return f"<= {bound * 1000:g} ms"
        return f"> {bounds[-1][0] * 1000:g} ms" if bounds else "?"

    within = next((cumulative for bound, cumulative in bounds if bound == TARGET_P99_MS / 1000), 0.0)
    return (
        f"mean {mean_ms:.1f} ms, p50 {upper(0.5)}, p99 {upper(0.99)}, "
        f"{within / count:.1%} within {TARGET_P99_MS:g} ms"
    )


# Processes whose CPU counts with their children's: the bench's own PostgreSQL server (its backends).
_TREES: set[int] = set()


def stack_processes(stack: Stack, handler_pid: int, postgres_url: str | None = None) -> dict[str, int]:
    """The stack's ingress, worker and broker processes (``_common.stack_roles``: a second process of a role,
    as PostgreSQL's shapes run, gets a suffix), the bench's own PostgreSQL server when it runs one (its CPU
    is the metadata database's, which SQLite spends inside the ingress and worker) and the handler."""
    roles = stack_roles(stack.process.pid)
    kept = {name: pid for name, pid in roles.items() if role_of(name) in ("ingress", "worker", "broker")}
    server = postgres_server_pid(postgres_url) if postgres_url else None
    if server is not None:
        _TREES.add(server)
        kept["postgres"] = server
    return {"handler": handler_pid} | kept


def count_with_children(pid: int) -> None:
    """``process_cpu(pid)`` counts the process's children too (a server that forks its workers)."""
    _TREES.add(pid)


def process_cpu(pid: int) -> float:
    return tree_cpu_seconds(pid) if pid in _TREES else cpu_seconds(pid)


def wait_responsive(url: str, timeout: float = 60) -> None:
    """An overloaded ingress keeps working through requests whose clients already gave up; the next step
    (and the metrics scrape) should start only once it answers promptly again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        began = time.monotonic()
        try:
            if httpx.get(f"{url}/healthz", timeout=5).status_code == 200 and time.monotonic() - began < 0.1:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)


def wait_delivered(handler: Handler, base: int, wanted: set[str], deadline_wall: float) -> None:
    """Until every wanted delivery arrived and the handler went quiet (stragglers of requests the generator
    gave up on would otherwise land in the next step), or the deadline."""
    while time.time() < deadline_wall:
        if handler.count() - base >= len(wanted) and wanted <= handler.arrivals(base).keys():
            break
        time.sleep(0.5)
    last = handler.count()
    while time.time() < deadline_wall:
        time.sleep(1.0)
        now = handler.count()
        if now == last:
            break
        last = now


def run_svc_step(
    stack: Stack,
    handler: Handler,
    processes: dict[str, int],
    generator: Generator,
    trigger_path: str,
    api_key: str,
    rate: float,
    args: argparse.Namespace,
) -> Step:
    return run_step(
        "svc", stack.url, stack.metrics_url, handler, processes, generator, trigger_path, api_key, rate, args
    )


def run_step(
    target: str,
    url: str,
    metrics_url: str | None,
    handler: Handler,
    processes: dict[str, int],
    generator: Generator,
    trigger_path: str,
    api_key: str,
    rate: float,
    args: argparse.Namespace,
) -> Step:
    """One open-loop step against the trigger at ``url`` (svc's, or a peer's with the same contract: 202
    with an executionId, the delivery at the handler with that id): latency, lag and CPU of ``processes``
    from the step's start until its deliveries settle. ``metrics_url``: svc's metrics, for its own timing."""
    base = handler.count()
    histogram_before = trigger_histogram(metrics_url) if metrics_url else {}
    cpu_before = {name: process_cpu(pid) for name, pid in processes.items()}
    began = time.monotonic()
    result = generator.run(
        url, trigger_path, api_key, rate=rate, warmup=args.warmup, seconds=args.seconds, closed=False
    )
    ran = time.monotonic() - began
    cpu_run = {name: process_cpu(pid) for name, pid in processes.items()}
    step = summarise(target, result)
    wait_responsive(url)
    histogram_after = trigger_histogram(metrics_url) if metrics_url else {}
    wanted = {sample[3] for sample in result["samples"] if sample[2] == 202 and sample[3]}
    sent_202 = len(wanted)
    deadline = step.window_end_wall + DELIVERY_GRACE_SECONDS
    progress(f"  {rate:,.0f}/s: {sent_202:,} accepted; waiting for the handler to see them")
    wait_delivered(handler, base, wanted, deadline)
    cpu_after = {name: process_cpu(pid) for name, pid in processes.items()}
    arrivals = handler.arrivals(base)
    restarted = sorted(name for name, pid in processes.items() if not Path(f"/proc/{pid}").exists())

    lags: list[float] = []
    window_start = step.window_end_wall - step.seconds
    for execution_id, accepted_at in step.accepted.items():
        arrived = arrivals.get(execution_id)
        if arrived is not None and arrived <= deadline:
            step.delivered += 1
            lags.append((arrived - accepted_at) * 1000)
            step.lag_by_offset.append((accepted_at - window_start, lags[-1]))
    step.lag = percentiles(lags) if len(lags) >= 2 else None
    in_window = sum(1 for arrived in arrivals.values() if window_start <= arrived <= step.window_end_wall)
    step.handler_rate = in_window / step.seconds
    if len(arrivals) >= 2:
        # Deliveries per second from the step's first arrival to its last: the worker's pace under backlog.
        span = max(arrivals.values()) - min(arrivals.values())
        step.drain_rate = len(arrivals) / span if span > 0 else 0.0
    requests = max(sent_202, 1)
    step.cpu_ms_per_request = {
        name: (cpu_after[name] - cpu_before[name]) / requests * 1000 for name in processes
    }
    # On an overloaded machine some requests time out at the client after the stack recorded them; the
    # stack still delivers those, so CPU per delivery that reached the handler is the steadier figure.
    step.handled = max(len(arrivals), 1)
    step.cpu_ms_per_delivery = {
        name: (cpu_after[name] - cpu_before[name]) / step.handled * 1000 for name in processes
    }
    step.cpu_share = {name: (cpu_run[name] - cpu_before[name]) / ran for name in processes}
    step.server_histogram = histogram_summary(histogram_before, histogram_after)
    step.restarted = restarted
    return step


# ------------------------------------------------------------------------------ in-process profile


T = TypeVar("T")


class ThreadProfiles:
    """cProfile follows one thread only; these wrappers profile the work the ingress hands to threads
    (the thread pool's auth and transform, the group committer's transactions) into per-thread profiles."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self.profiles: list[cProfile.Profile] = []
        self.enabled = False

    def wrap(self, function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            # On the event-loop thread (auth runs inline on SQLite) the loop's own profile is running:
            # enabling another there would replace it.
            if not self.enabled or threading.current_thread() is threading.main_thread():
                return function(*args, **kwargs)
            profile: cProfile.Profile | None = getattr(self._local, "profile", None)
            if profile is None:
                profile = cProfile.Profile(time.thread_time)
                self._local.profile = profile
                with self._lock:
                    self.profiles.append(profile)
            profile.enable()
            try:
                return function(*args, **kwargs)
            finally:
                profile.disable()

        return wrapper


class StepTimer:
    """Wall time of the trigger's sub-steps, summed over the requests of one run."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.calls: Counter[str] = Counter()

    def sync(self, name: str, function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - began)

        return wrapper

    def awaitable(self, name: str, function: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        @functools.wraps(function)
        async def wrapper(*args: Any, **kwargs: Any) -> T:
            began = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - began)

        return wrapper

    def add(self, name: str, seconds: float) -> None:
        self.totals[name] = self.totals.get(name, 0.0) + seconds
        self.calls[name] += 1

    def report(self, requests: int) -> list[str]:
        return [
            f"    {name:<34}{self.totals[name] / max(self.calls[name], 1) * 1000:8.2f} ms per call "
            f"({self.calls[name] / max(requests, 1):.2f} calls per request)"
            for name in self.totals
        ]


async def _drive(app: Any, trigger_query: str, api_key: str, requests: int, concurrency: int) -> Counter[int]:
    """Raw ASGI calls, no HTTP server and no client: only the application's own cost is left."""
    statuses: Counter[int] = Counter()
    counter = iter(range(requests))
    path = TRIGGER

    async def call(index: int) -> None:
        body = body_for(10**8 + index)
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": trigger_query.encode(),
            "headers": [
                (b"host", b"127.0.0.1"),
                (b"content-type", b"application/json"),
                (b"authorization", api_key.encode()),
                (b"content-length", str(len(body)).encode()),
            ],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 80),
        }
        delivered = False

        async def receive() -> MutableMapping[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                statuses[int(message["status"])] += 1

        await app(scope, receive, send)

    async def worker() -> None:
        for index in counter:
            await call(index)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return statuses


# The project's own packages, to pick them out of the framework frames that wrap every request.
PROJECT_FRAMES = r"/(ingress|sinks|streams|schemas)/"


def _top(stats: pstats.Stats, limit: int, order: str = "tottime", only: str | None = None) -> list[str]:
    stream = io.StringIO()
    stats.stream = stream  # type: ignore[attr-defined] # pstats prints to this attribute
    restrictions: list[str | int] = [only, limit] if only else [limit]
    stats.sort_stats(order).print_stats(*restrictions)
    lines = [line for line in stream.getvalue().splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    return [
        "    " + re.sub(r"/\S*/(site-packages|lib/python3\.11|main)/", "", line) for line in lines[start:]
    ]


def profile_ingress(
    stack: Stack, webhook_id: str, api_key: str, requests: int, concurrency: int
) -> list[str]:
    """The ingress app in this process, on the stack's DB and broker: sub-step wall times, then a
    CPU profile of the event loop and of the threads it hands work to."""
    from ingress.app import create_app
    from ingress.webhooks import trigger as webhook_trigger
    from schemas.settings import Settings
    from sinks.db.group_commit import GroupCommitter

    settings = Settings(
        data_dir=Path(stack.env["SVC_DATA_DIR"]),
        kafka_bootstrap=f"127.0.0.1:{stack.env['SVC_BROKER_PORT']}",
        webhook_rate_limit_per_minute=10**9,
        webhook_rate_limit_per_day=10**12,
        log_level="WARNING",
    )
    timer = StepTimer()
    threads = ThreadProfiles()
    lines: list[str] = []
    with ExitStack() as patches:

        def patch(owner: Any, name: str, replacement: Any) -> None:
            original = getattr(owner, name)
            setattr(owner, name, replacement(original))
            patches.callback(setattr, owner, name, original)

        # Module globals are looked up per call, so replacing them here reaches the route's calls.
        patch(webhook_trigger, "_authenticate", lambda f: threads.wrap(timer.sync("auth (thread pool)", f)))
        patch(
            webhook_trigger,
            "apply_transform",
            lambda f: threads.wrap(timer.sync("transform (thread pool)", f)),
        )
        patch(GroupCommitter, "_commit", lambda f: threads.wrap(timer.sync("group commit (one batch)", f)))

        async def run() -> None:
            app = create_app(settings)
            async with app.router.lifespan_context(app):
                committer, publisher = app.state.committer, app.state.publisher
                committer.run = timer.awaitable("await committer.run", committer.run)
                publisher.publish_record = timer.awaitable(
                    "await publisher.publish_record (acks=all)", publisher.publish_record
                )
                await _drive(app, f"resourceId={webhook_id}", api_key, 200, concurrency)  # warm caches
                timer.totals.clear()
                timer.calls.clear()
                began = time.perf_counter()
                cpu_began = time.process_time()
                statuses = await _drive(app, f"resourceId={webhook_id}", api_key, requests, concurrency)
                wall = time.perf_counter() - began
                cpu = time.process_time() - cpu_began
                lines.append(
                    f"  timing pass: {requests:,} requests, {concurrency} in flight, "
                    f"statuses {dict(statuses)}: "
                    f"{requests / wall:,.0f} req/s, {cpu / requests * 1000:.2f} ms CPU per request "
                    f"(all threads), {wall / requests * concurrency * 1000:.1f} ms mean latency"
                )
                lines.extend(timer.report(requests))

                # Per-thread CPU time, not wall time: waits for the GIL, the DB or the broker would
                # otherwise dominate every line.
                main_profile = cProfile.Profile(time.thread_time)
                threads.enabled = True
                began = time.perf_counter()
                main_profile.enable()
                try:
                    await _drive(app, f"resourceId={webhook_id}", api_key, requests, concurrency)
                finally:
                    main_profile.disable()
                    threads.enabled = False
                lines.append(
                    f"  profile pass (cProfile on; slower): {requests / (time.perf_counter() - began):,.0f} "
                    "req/s"
                )
                loop_stats = pstats.Stats(main_profile)
                merged: pstats.Stats | None = None
                for profile in threads.profiles:
                    if merged is None:
                        merged = pstats.Stats(profile)
                    else:
                        merged.add(profile)
                # total_tt is set by pstats but missing from its stubs.
                loop_cpu: float = loop_stats.total_tt  # type: ignore[attr-defined]
                thread_cpu: float = merged.total_tt if merged is not None else 0.0  # type: ignore[attr-defined]
                lines.append(
                    f"  CPU under the profiler: event-loop thread {loop_cpu:.2f} s, "
                    f"worker threads {thread_cpu:.2f} s"
                )
                lines.append("  event-loop thread, by own CPU time (s):")
                lines.extend(_top(loop_stats, 20))
                lines.append("  event-loop thread, project functions by CPU time including callees (s):")
                lines.extend(_top(loop_stats, 12, "cumulative", PROJECT_FRAMES))
                if merged is not None:
                    lines.append("  worker threads (auth, transform, group commit), by own CPU time (s):")
                    lines.extend(_top(merged, 14))
                    lines.append("  worker threads, project functions by CPU time including callees (s):")
                    lines.extend(_top(merged, 10, "cumulative", PROJECT_FRAMES))

        asyncio.run(run())
    return lines


# ------------------------------------------------------------------------------ orchestration and report


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--rates", default="250,500,1000,1500", help="comma-separated constant rates (requests per second)"
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="measured window per rate")
    parser.add_argument(
        "--bare-seconds",
        type=float,
        default=None,
        help="the bare endpoint's window per rate (default: --seconds; its cost does not drift with time)",
    )
    add_shape_arguments(parser)
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="warm-up at the same rate before each window"
    )
    parser.add_argument("--connections", type=int, default=256, help="generator connection pool size")
    parser.add_argument(
        "--max-concurrency",
        type=int,
        default=MAX_CONCURRENCY,
        help="the handler resource's maxConcurrency (the resource's own default is 16)",
    )
    parser.add_argument(
        "--idle-seconds", type=float, default=3.0, help="window of the idle CPU measurement before the load"
    )
    parser.add_argument(
        "--idle-settle", type=float, default=5.0, help="pause after the first delivery before the idle window"
    )
    parser.add_argument("--client", choices=["auto", "httpx", "raw"], default="auto")
    parser.add_argument(
        "--profile-requests", type=int, default=2000, help="in-process profile of the ingress (0 skips)"
    )
    roles = parser.add_subparsers(dest="role")
    handler = roles.add_parser("handler", help="(internal) the recording handler")
    handler.add_argument("--port", type=int, required=True)
    bare = roles.add_parser("bare", help="(internal) the bare 202 endpoint")
    bare.add_argument("--port", type=int, required=True)
    load = roles.add_parser("load", help="(internal) the load generator")
    load.add_argument("--url", required=True)
    load.add_argument("--path", required=True)
    load.add_argument("--auth", default="")
    load.add_argument("--client", choices=sorted(CLIENTS), required=True)
    load.add_argument("--connections", type=int, required=True)
    load.add_argument("--rate", type=float, required=True)
    load.add_argument("--warmup", type=float, required=True)
    load.add_argument("--seconds", type=float, required=True)
    load.add_argument("--closed", action="store_true")
    load.add_argument(
        "--key-prefix", default=None, help="send an Idempotency-Key per request: PREFIX-<request index>"
    )
    load.add_argument("--out", required=True)
    return parser.parse_args()


@dataclass
class Run:
    client: str = ""
    probes: dict[str, dict[str, Any]] = field(default_factory=dict)
    bare: list[Step] = field(default_factory=list)
    svc: list[Step] = field(default_factory=list)
    bare_cpu_ms: dict[float, float] = field(default_factory=dict)
    idle_share: dict[str, float] = field(default_factory=dict)
    profile: list[str] = field(default_factory=list)
    load_before: float = 0.0
    load_after: float = 0.0
    shape: str = ""


@contextmanager
def helper_server(role: str, tmp: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    ready = f"{url}/healthz" if role == "bare" else f"{url}/stats"
    command = [sys.executable, __file__, role, "--port", str(port)]
    with running_server(command, ready, log_path=tmp / f"{role}.log") as process:
        yield url, process.pid


def measure_bare(run: Run, rates: list[float], args: argparse.Namespace, tmp: Path) -> None:
    trigger_path = f"{TRIGGER}?resourceId={'0' * 32}"
    with helper_server("bare", tmp) as (url, pid):
        progress(f"bare FastAPI endpoint at {url}; probing the generator's capacity")
        run.probes = probe_generators(url, args.connections, tmp)
        run.client = choose_client(args.client, run.probes, max(rates), args.connections)
        progress(f"load generator: {run.client} client, {args.connections} connections")
        generator = Generator(run.client, args.connections, tmp)
        for rate in rates:
            cpu_before = cpu_seconds(pid)
            result = generator.run(
                url,
                trigger_path,
                "",
                rate=rate,
                warmup=args.warmup,
                seconds=args.bare_seconds or args.seconds,
                closed=False,
            )
            step = summarise("bare", result)
            run.bare_cpu_ms[rate] = (cpu_seconds(pid) - cpu_before) / max(len(result["samples"]), 1) * 1000
            run.bare.append(step)
            progress(f"  bare {rate:,.0f}/s: achieved {step.achieved:,.0f}/s, p50/p95/p99 {step.latency} ms")


# The request quotas lifted, so a load bench measures the pipeline rather than its rate limits.
UNLIMITED = {
    "SVC_WEBHOOK_RATE_LIMIT_PER_MINUTE": str(10**9),
    "SVC_WEBHOOK_RATE_LIMIT_PER_DAY": str(10**12),
    "SVC_RATE_LIMIT_PER_MINUTE": "100000",
}


def measure_svc(run: Run, rates: list[float], args: argparse.Namespace, tmp: Path) -> None:
    base = UNLIMITED
    with helper_server("handler", tmp) as (handler_url, handler_pid), shape_postgres(args) as postgres_url:
        limits = shape_settings(args, postgres_url, base)
        run.shape = shape_line(limits, postgres_url)
        progress("starting svc up")
        with running_stack(tmp / "data", limits) as stack:
            progress(f"svc is up at {stack.url}; the handler listens at {handler_url}")
            webhook_id, api_key = create_webhook(stack, f"{handler_url}/run", args.max_concurrency)
            trigger_path = f"{TRIGGER}?resourceId={webhook_id}"
            handler = Handler(handler_url)
            try:
                check = httpx.post(
                    f"{stack.url}{trigger_path}",
                    content=body_for(0),
                    headers={"Authorization": api_key, "Content-Type": "application/json"},
                    timeout=30,
                )
                if check.status_code != 202:
                    raise RuntimeError(f"the trigger answered {check.status_code}: {check.text[:300]}")
                wait_delivered(handler, 0, {check.json()["executionId"]}, time.time() + 60)
                if handler.count() < 1:
                    raise RuntimeError("the first delivery did not reach the handler within 60 s")
                processes = stack_processes(stack, handler_pid, postgres_url)
                progress(f"webhook {webhook_id} delivers to the handler; processes {processes}")
                # What the stack burns with no load (timers, consumer polling), to read the table against;
                # measured once the first delivery's busy fetch wait (sinks/embedded_broker/fetch_wait.py)
                # has lapsed.
                time.sleep(args.idle_settle)
                idle_before = {name: process_cpu(pid) for name, pid in processes.items()}
                time.sleep(args.idle_seconds)
                run.idle_share = {
                    name: (process_cpu(pid) - idle_before[name]) / args.idle_seconds
                    for name, pid in processes.items()
                }
                progress(
                    "idle CPU (share of a core): "
                    + ", ".join(f"{name} {share:.1%}" for name, share in run.idle_share.items())
                )
                if not rates:
                    return
                generator = Generator(run.client, args.connections, tmp)
                for rate in rates:
                    step = run_svc_step(
                        stack, handler, processes, generator, trigger_path, api_key, rate, args
                    )
                    run.svc.append(step)
                    if step.restarted:
                        progress(f"  restarted during the step: {', '.join(step.restarted)}; CPU not valid")
                        processes = stack_processes(stack, handler_pid, postgres_url)
                    progress(
                        f"  svc {rate:,.0f}/s: achieved {step.achieved:,.0f}/s, "
                        f"p50/p95/p99 {step.latency} ms, lag p50/p95/p99 {step.lag} ms, "
                        f"delivered {step.delivered:,}/{step.accepted_count:,}"
                    )
                if args.profile_requests > 0:
                    progress(
                        f"profiling the ingress in-process ({args.profile_requests:,} requests per pass)"
                    )
                    try:
                        run.profile = profile_ingress(stack, webhook_id, api_key, args.profile_requests, 64)
                    except Exception as exc:
                        # The ladder's numbers stand on their own; a failed profile only loses the detail.
                        run.profile = [f"  skipped: {type(exc).__name__}: {exc}"]
            finally:
                handler.close()
            progress("stopping svc up")


def _ms(value: Percentiles | None, which: str) -> str:
    return f"{getattr(value, which):.1f}" if value is not None else "-"


def _verdict(step: Step) -> str:
    misses: list[str] = []
    if step.achieved < SUSTAINED_SHARE * step.rate:
        misses.append("rate")
    if step.latency is None or step.latency.p99 > TARGET_P99_MS:
        misses.append("p99")
    if step.lag is None or step.lag.p99 > TARGET_LAG_P99_MS:
        misses.append("lag")
    if step.delivered < step.accepted_count:
        misses.append("delivery")
    return "ok" if not misses else "MISSED " + ",".join(misses)


def _slice_starts(seconds: float) -> list[float]:
    return [index * SLICE_SECONDS for index in range(int(seconds // SLICE_SECONDS))]


def _slice_p99(samples: list[tuple[float, float]], start: float) -> str:
    inside = [value for offset, value in samples if start <= offset < start + SLICE_SECONDS]
    return f"{percentiles(inside).p99:.0f}" if len(inside) >= 2 else "-"


def report(run: Run, args: argparse.Namespace) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {run.load_before:.2f} before the run, "
        f"{run.load_after:.2f} at its end (the run itself adds about 2)"
    )
    print(
        f"generator: {run.client} client in its own process, {args.connections} connections, open loop, "
        f"{args.warmup:g} s warm-up + {args.seconds:g} s window per rate"
        + (f" (bare endpoint: {args.bare_seconds:g} s)" if args.bare_seconds else "")
        + "; latency from the scheduled send time"
    )
    print(run.shape)
    if args.set:
        print(f"stack settings: {' '.join(args.set)}")
    for label, probe in run.probes.items():
        print(
            f"  capacity probe {label:>10}: {probe['completed'] / probe['wallSeconds']:,.0f} req/s "
            f"closed-loop vs bare at {probe['cpuSeconds'] / probe['wallSeconds']:.0%} of a core, "
            f"{_per_cpu(probe):,.0f} req per generator CPU-second"
        )
    header = (
        f"{'rate/s':>7} | {'bare ach/s':>10} {'bare p50':>8} {'bare p99':>8} | "
        f"{'svc ach/s':>9} {'svc p50':>8} {'svc p99':>8} | {'ach ratio':>9} {'p99 ratio':>9} | "
        f"{'lag p50':>8} {'lag p99':>8} "
        f"{'delivered':>15} {'handler/s':>9} {'drain/s':>7} | {'errors':<16} | verdict"
    )
    print()
    print(
        "latency in ms; ach = 202s received per second inside the window; lag = 202 -> handler start;\n"
        "handler/s = arrivals inside the window; drain/s = arrivals per second from the step's first to last"
    )
    print(header)
    print("-" * len(header))
    for bare, svc in zip(run.bare, run.svc, strict=False):
        ach_ratio = f"{svc.achieved / bare.achieved:.2f}" if bare.achieved else "-"
        p99_ratio = (
            f"{svc.latency.p99 / bare.latency.p99:.1f}x"
            if svc.latency is not None and bare.latency is not None and bare.latency.p99 > 0
            else "-"
        )
        errors = ",".join(f"{k}:{v}" for k, v in sorted(svc.errors.items())) or "0"
        if bare.errors:
            errors += " bare:" + ",".join(f"{k}:{v}" for k, v in sorted(bare.errors.items()))
        print(
            f"{svc.rate:>7,.0f} | {bare.achieved:>10,.0f} {_ms(bare.latency, 'p50'):>8} "
            f"{_ms(bare.latency, 'p99'):>8} | {svc.achieved:>9,.0f} {_ms(svc.latency, 'p50'):>8} "
            f"{_ms(svc.latency, 'p99'):>8} | {ach_ratio:>9} {p99_ratio:>9} | {_ms(svc.lag, 'p50'):>8} "
            f"{_ms(svc.lag, 'p99'):>8} {f'{svc.delivered:,}/{svc.accepted_count:,}':>15} "
            f"{svc.handler_rate:>9,.0f} {svc.drain_rate:>7,.0f} | {errors:<16} | {_verdict(svc)}"
        )
    print()
    print("CPU per accepted request (ms, from the step's start until its deliveries settled) and share of a")
    print("core while the generator ran; the machine has 2 cores, so 1,000 req/s leaves 2 ms per request")
    names = sorted({name for step in run.svc for name in step.cpu_ms_per_request})
    header = (
        f"{'rate/s':>7} | " + " ".join(f"{name:>16}" for name in names) + f" | {'generator':>9} | bare srv"
    )
    print(header)
    print("-" * len(header))
    idle = " ".join(f"{'idle':>10} {run.idle_share.get(name, 0):>5.0%}" for name in names)
    print(f"{'idle':>7} | {idle} |")
    for bare, svc in zip(run.bare, run.svc, strict=False):
        cells = " ".join(
            f"{svc.cpu_ms_per_request.get(name, 0):>7.2f} ms {svc.cpu_share.get(name, 0):>5.0%}"
            for name in names
        )
        print(
            f"{svc.rate:>7,.0f} | {cells} | {svc.generator_cpu:>9.0%} | "
            f"{run.bare_cpu_ms.get(bare.rate, 0):.2f} ms"
        )
    print()
    print("CPU per delivery that reached the handler (ms; counts the deliveries of timed-out requests too)")
    for bare, svc in zip(run.bare, run.svc, strict=False):
        stack = sum(value for name, value in svc.cpu_ms_per_delivery.items() if name != "handler")
        bare_ms = run.bare_cpu_ms.get(bare.rate, 0)
        cells = " ".join(f"{name} {value:.2f}" for name, value in sorted(svc.cpu_ms_per_delivery.items()))
        ratio = f"{stack / bare_ms:.2f}x" if bare_ms else "-"
        if svc.restarted:
            print(f"{svc.rate:>7,.0f} | not valid: {', '.join(svc.restarted)} restarted during the step")
            continue
        print(
            f"{svc.rate:>7,.0f} | {svc.handled:,} deliveries: {cells} | stack {stack:.2f} ms, "
            f"bare {bare_ms:.2f} ms, ratio {ratio}"
        )
    print()
    print(
        "generator health (p99 / max of how late a request left vs its schedule; high = generator saturated):"
    )
    for step in [*run.bare, *run.svc]:
        print(
            f"  {step.target:>4} {step.rate:>6,.0f}/s: loop delay p99 {step.loop_delay_p99_ms:.1f} ms, "
            f"generator {step.generator_cpu:.0%} of a core"
        )
    print()
    long_steps = [step for step in run.svc if step.seconds >= 2 * SLICE_SECONDS]
    if long_steps:
        print(f"202 p99 / lag p99 (ms) per {SLICE_SECONDS:g} s of the window (does a long run drift?):")
        for step in long_steps:
            slices = [
                f"{_slice_p99(step.latency_by_offset, start)}/{_slice_p99(step.lag_by_offset, start)}"
                for start in _slice_starts(step.seconds)
            ]
            print(f"  {step.rate:>6,.0f}/s: {'  '.join(slices)}")
        print()
    print("ingress's own timing of the trigger (svc_http_request_seconds, middleware in to out):")
    for step in run.svc:
        print(f"  {step.rate:>6,.0f}/s: {step.server_histogram}")
    at_target = [step for step in run.svc if step.rate >= TARGET_RATE]
    print()
    print(
        f"targets: >= {TARGET_RATE:,.0f} deliveries/s sustained, 202 p99 <= {TARGET_P99_MS:g} ms, "
        f"lag p99 <= {TARGET_LAG_P99_MS:g} ms, every accepted delivery at the handler within "
        f"{DELIVERY_GRACE_SECONDS:g} s"
    )
    if not at_target:
        print(f"  not assessed: no rate >= {TARGET_RATE:,.0f}/s in --rates")
    for step in at_target:
        print(f"  at {step.rate:,.0f}/s: {_verdict(step)}")
    passing = [step.rate for step in run.svc if _verdict(step) == "ok"]
    print(
        f"  highest rate meeting every target: {max(passing):,.0f}/s"
        if passing
        else "  no rate met every target"
    )
    if run.profile:
        print()
        print("in-process profile of the ingress app (same DB and broker, no HTTP server or client):")
        for line in run.profile:
            print(line)


def main() -> int:
    args = _arguments()
    if args.role == "handler":
        serve_handler(args.port)
        return 0
    if args.role == "bare":
        serve_bare(args.port)
        return 0
    if args.role == "load":
        generate(args)
        return 0
    rates = [float(rate) for rate in args.rates.split(",") if rate.strip()]
    if rates and min(rates) <= 0:
        print("--rates needs positive numbers", file=sys.stderr)
        return 2
    if not rates:  # `--rates ""`: only the stack's idle CPU
        run = Run()
        with tempfile.TemporaryDirectory(prefix="bench-webhook-idle-", ignore_cleanup_errors=True) as name:
            measure_svc(run, rates, args, Path(name))
        return 0
    # Anything else running on the 2 cores skews every number; the load averages make that visible.
    run = Run(load_before=os.getloadavg()[0])
    try:
        with tempfile.TemporaryDirectory(prefix="bench-webhook-load-", ignore_cleanup_errors=True) as name:
            tmp = Path(name)
            measure_bare(run, rates, args, tmp)
            measure_svc(run, rates, args, tmp)
            run.load_after = os.getloadavg()[0]
        report(run, args)
    except Exception:
        traceback.print_exc()
        if run.svc:
            report(run, args)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
