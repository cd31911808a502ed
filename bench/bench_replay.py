"""Webhook replay (issue 24): replay N FAILED executions while live traffic runs; the live p99 without and
during the replay, and the replay's throughput.

The real stack runs as ``svc up`` (SQLite unless ``--set SVC_DATABASE_URL=...``). Two webhooks of one company
deliver to bench_webhook_load's recording handler (a process of its own, always 200): ``orders``, whose N
FAILED executions are replayed, and ``live``. The N FAILED executions are written straight into the metadata
DB through the service's own DB layer (``sinks/db``: the payload and history rows ``record_delivery`` writes
for a trigger, as the worker leaves them once the handler answered 503 with no retries left, and the
per-status counts), 2,000 a transaction, before any load starts: sending 100,000 triggers to a failing
handler would take most of an hour of this benchmark's time and measure nothing of the replay.

Live traffic is bench_webhook_load's open-loop generator (raw client in its own process; latency counted from
each request's scheduled send time) at ``--live-rate`` on ``live``, one stream for the whole run:

1. ``alone: before``: ``--seconds`` before the first /replay call;
2. ``during``: from the first /replay call until every replay ended (or ``--during`` seconds), split into
   the time /replay calls ran (they record every replayed execution before they answer) and the paced
   hand-over (the worker hands the replays to the handler queue at ``SVC_REPLAY_RATE_PER_SECOND``);
3. ``alone: after``: the rest of the stream once the replay is over. The baseline is both alone windows
   pooled, so a drift of the machine or the database's growth falls on both sides.

The /replay calls (``--per-call`` executionIds each, 10,000 by default, one after another from a thread of
this process, ``--call-gap`` apart) are timed. With gaps, the live traffic alternates between calls running
and not, which compares the two in the same stretch of time (robust to the machine's load moving). Replay
throughput = N / (first /replay call to the last replay's end: SUCCESS, or FAILED when the handler could
not be reached). Also printed: each process's share of a core alone, during the calls and during the
hand-over; the ingress's CPU per recorded replay; and the ingress's own mean time per live trigger (its
metrics histogram: no queueing before the application) in the ``ingress`` column. Target: live p99 during the
replay (all of it, and the part while /replay calls ran) within 1.5x of the baseline. Times are printed,
never asserted; the exit status is 1 only when the stack fails. On 2 shared cores every figure moves with
the machine's load average, which is printed.

The embedded broker's renewal: ``--renew-records`` gives the stack a record limit low enough that the broker
renews (rotates its topic generations) several times during the run; ``--timeline`` then also prints the live
p99 across the renewals (from "renewing the embedded broker" to "embedded broker renewed" in the stack's log)
against between them, over the whole live stream, as ``RESULT renewal_p99_ratio=...`` (target 1.5).

    .venv/bin/python bench/bench_replay.py --count 2000 --seconds 10       # a few minutes
    .venv/bin/python bench/bench_replay.py                                 # 100,000 at 50/s: about 40 min
    .venv/bin/python bench/bench_replay.py --rate 200                      # 100,000 at 200/s
    .venv/bin/python bench/bench_replay.py --count 20000 --rate 100 --timeline --renew-records 300
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx
from _common import (
    REPO,
    Percentiles,
    Stack,
    add_set_argument,
    cpu_seconds,
    percentiles,
    progress,
    running_stack,
    stack_settings,
)
from _phases import (
    Stream,
    Window,
    describe_statuses,
    latency_at,
    load_average,
    table,
    wait_first_request,
    window,
)
from bench_webhook_load import (
    BASE,
    TRIGGER,
    WEBHOOK_CONFIG,
    Generator,
    body_for,
    helper_server,
    poweruser,
    stack_processes,
    trigger_histogram,
)
from sqlalchemy import Table

TARGET_RATIO = 1.5
DRIFT_LIMIT = 1.5
"""The two alone windows (before and after the replay) pooled make the baseline only while they agree: when
their p99s differ by more than this, the stack or the machine drifted during the run and no ratio is valid."""
PER_CALL = 10_000
SEED_PER_TRANSACTION = 2_000
WARMUP_SECONDS = 2.0
TIMELINE_SLICE_SECONDS = 5.0


# ------------------------------------------------------------------------------ set-up


def create_webhook(client: httpx.Client, key: str, resource_id: str, name: str) -> tuple[str, str]:
    created = poweruser(client, key, "create", {"webhookConfig": {"name": name}})
    webhook_id = str(created["webhook"]["id"])
    config = {
        **WEBHOOK_CONFIG,
        "name": name,
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": resource_id,
            "variables": {"order": "@@{orderId}", "total": "@@{total}", "email": "@@{email}"},
        },
    }
    poweruser(client, key, "update", {"webhookId": webhook_id, "webhookConfig": config})
    return webhook_id, str(created["apiKey"])


def seed_failed(stack: Stack, company_id: str, webhook_id: str, resource_id: str, count: int) -> list[str]:
    """``count`` FAILED executions of the webhook, oldest first, written as the delivery path leaves them."""
    # This process imports the checkout it runs from (a worktree's bench must not seed with another's code).
    sys.path.insert(0, str(REPO))
    from schemas.settings import Settings
    from schemas.webhooks import ExecutionStatus
    from sinks import credentials
    from sinks.db import write_lock
    from sinks.db.deferred import defer_insert
    from sinks.db.engine import make_engine, make_sessions
    from sinks.db.models import WebhookExecution, WebhookPayload
    from sinks.db.webhooks import executions

    settings = Settings(
        data_dir=Path(stack.env["SVC_DATA_DIR"]), database_url=stack.env.get("SVC_DATABASE_URL") or None
    )
    engine = make_engine(settings.resolved_database_url)
    sessions = make_sessions(engine)
    payloads, entries = cast(Table, WebhookPayload.__table__), cast(Table, WebhookExecution.__table__)
    headers = json.dumps({"content-type": "application/json", "authorization": "[REDACTED]"})
    query = json.dumps({"resourceId": webhook_id})
    failed = ExecutionStatus.FAILED.value
    first = datetime.now(UTC) - timedelta(hours=1)
    ids: list[str] = []
    try:
        for start in range(0, count, SEED_PER_TRANSACTION):
            with sessions.begin() as session:
                write_lock.take(session)
                for index in range(start, min(count, start + SEED_PER_TRANSACTION)):
                    body = body_for(index)
                    order = json.loads(body)
                    payload_id, execution_id = credentials.new_id(), credentials.new_id()
                    queued = first + timedelta(milliseconds=index)
                    variables = {
                        "orderId": order["order"]["id"],
                        "total": order["order"]["total"],
                        "email": order["customer"]["email"],
                    }
                    defer_insert(
                        session,
                        payloads,
                        dict(
                            id=payload_id,
                            company_id=company_id,
                            webhook_id=webhook_id,
                            request_payload=body.decode(),
                            request_headers=headers,
                            request_query_params=query,
                        ),
                    )
                    defer_insert(
                        session,
                        entries,
                        dict(
                            id=credentials.new_id(),
                            execution_id=execution_id,
                            webhook_id=webhook_id,
                            company_id=company_id,
                            payload_id=payload_id,
                            attempt_number=1,
                            status=failed,
                            resource_type="TOOL",
                            resource_id=resource_id,
                            queued_at=queued,
                            started_at=queued,
                            ended_at=queued + timedelta(milliseconds=5),
                            duration_ms=5,
                            webhook_name="orders",
                            http_method="POST",
                            source_ip="127.0.0.1",
                            transform_type="JSONPATH",
                            transformed_variables=json.dumps(variables),
                            error_message="HTTP 503 from the handler (seeded by bench_replay.py)",
                            available_at=queued,
                            dispatched_at=queued,
                        ),
                    )
                    ids.append(execution_id)
                executions.bump(session, webhook_id, failed, len(ids) - start)
    finally:
        engine.dispose()
    return ids


def count_status(client: httpx.Client, key: str, webhook_id: str, status: str) -> int:
    body = {"webhookId": webhook_id, "status": status, "size": 1}
    return int(poweruser(client, key, "get-execution-history", body)["totalElements"])


# ------------------------------------------------------------------------------ the replay


@dataclass
class Call:
    began: float  # wall times
    ended: float
    sent: int
    replayed: int
    # The ingress's own timing of live triggers (its metrics histogram) when the call began and ended.
    before: dict[str, float] = field(default_factory=dict)
    after: dict[str, float] = field(default_factory=dict)


@dataclass
class Replayer:
    """The /replay calls, one after another on a thread of this process."""

    url: str
    key: str
    webhook_id: str
    ids: list[str]
    processes: dict[str, int]
    metrics_url: str = ""
    per_call: int = PER_CALL
    gap: float = 0.0  # seconds between two calls
    calls: list[Call] = field(default_factory=list)
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    cpu_after: dict[str, float] = field(default_factory=dict)  # the stack's CPU once the last call answered

    def start(self) -> None:
        threading.Thread(target=self._run, name="replayer", daemon=True).start()

    def _run(self) -> None:
        try:
            with httpx.Client(base_url=self.url, timeout=3600) as client:
                for first in range(0, len(self.ids), self.per_call):
                    if first:
                        time.sleep(self.gap)
                    chunk = self.ids[first : first + self.per_call]
                    before = trigger_histogram(self.metrics_url)
                    began = time.time()
                    body = {"webhookId": self.webhook_id, "executionIds": chunk, "limit": self.per_call}
                    answer = client.post(f"{BASE}/replay", json=body, headers={"Authorization": self.key})
                    if answer.status_code != 200:
                        raise RuntimeError(f"/replay answered {answer.status_code}: {answer.text[:300]}")
                    replayed = int(answer.json()["replayed"])
                    ended = time.time()
                    after = trigger_histogram(self.metrics_url)
                    self.calls.append(Call(began, ended, len(chunk), replayed, before, after))
                    progress(f"  /replay {len(self.calls)}: {replayed:,} of {len(chunk):,} in "
                             f"{self.calls[-1].ended - began:.2f} s")  # fmt: skip
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.cpu_after = cpu_snapshot(self.processes)
            self.done.set()


def cpu_snapshot(processes: dict[str, int]) -> dict[str, float]:
    return {name: cpu_seconds(pid) for name, pid in processes.items()}


# ------------------------------------------------------------------------------ the run


@dataclass
class Outcome:
    count: int = 0
    seed_seconds: float = 0.0
    runs: list[dict[str, Any]] = field(default_factory=list)  # the live stream (and an extra "after" one)
    alone: tuple[float, float] = (0.0, 0.0)  # wall times
    during: tuple[float, float] = (0.0, 0.0)
    after: list[tuple[int, float, float]] = field(default_factory=list)  # (run, begin, end)
    calls: list[Call] = field(default_factory=list)
    replay_finished: float | None = None  # wall time every replay was seen ended
    succeeded: int = 0
    failed: int = 0  # replays FAILED (the handler could not be reached, say)
    # (wall time, CPU seconds per process): alone begins, the replay begins, the last call answered, the
    # replay is over (or the live stream ends).
    cpu: list[tuple[float, dict[str, float]]] = field(default_factory=list)
    # The ingress's trigger histogram when alone begins, the replay begins and the replay is over.
    server: list[dict[str, float]] = field(default_factory=list)
    # The embedded broker's renewals, (began, ended) in wall time, from the stack's log.
    renewals: list[tuple[float, float]] = field(default_factory=list)


def sleep_until(wall: float) -> None:
    time.sleep(max(0.0, wall - time.time()))


def live_stream(
    generator: Generator, stack: Stack, path: str, key: str, rate: float, seconds: float
) -> tuple[Stream, float]:
    """The live stream in the background, and the wall time its measured part begins."""
    before = trigger_histogram(stack.metrics_url).get("count", 0.0)
    run = functools.partial(generator.run, stack.url, path, key, rate=rate, warmup=WARMUP_SECONDS)
    stream = Stream(functools.partial(run, seconds=seconds, closed=False))
    return stream, wait_first_request(stack.metrics_url, before) + WARMUP_SECONDS


def handled(client: httpx.Client, key: str, webhook_id: str, outcome: Outcome) -> bool:
    """Counts the replays that ended (SUCCESS, or FAILED beyond the seeded originals); True once all did."""
    outcome.succeeded = count_status(client, key, webhook_id, "SUCCESS")
    outcome.failed = count_status(client, key, webhook_id, "FAILED") - outcome.count
    return outcome.succeeded + outcome.failed >= outcome.count


def follow_replay(
    client: httpx.Client, key: str, webhook_id: str, replayer: Replayer, outcome: Outcome, until: float
) -> None:
    """Until every replay ended or ``until`` (wall time), whichever is first."""
    reported = time.time()
    while time.time() < until:
        if replayer.error:
            raise RuntimeError(f"the replay failed: {replayer.error}")
        if replayer.done.is_set() and handled(client, key, webhook_id, outcome):
            outcome.replay_finished = time.time()
            return
        if time.time() - reported >= 30:
            reported = time.time()
            handled(client, key, webhook_id, outcome)
            progress(f"  {outcome.succeeded + outcome.failed:,} of {outcome.count:,} replays ended")
        time.sleep(1.0)


def renewal_env(args: argparse.Namespace) -> dict[str, str]:
    """Thresholds that make the embedded broker renew during the run (``--renew-records``), and the log
    level that shows each renewal's end."""
    if not args.renew_records:
        return {}
    return {
        "SVC_EMBEDDED_BROKER_RENEW_RECORDS": str(args.renew_records),
        "SVC_EMBEDDED_BROKER_RENEW_MIN_SECONDS": str(args.renew_min_seconds),
        "SVC_EMBEDDED_BROKER_CHECK_SECONDS": "1",
        "SVC_LOG_LEVEL": "INFO",
    }


def _wall(entry: dict[str, Any]) -> float:
    return datetime.fromisoformat(str(entry["ts"]).replace("Z", "+00:00")).timestamp()


def renewals_in(log_path: Path) -> list[tuple[float, float]]:
    """Each renewal of the stack's log as (began, ended) wall times: from "renewing the embedded broker" to
    the next "embedded broker renewed" or "... stopped"."""
    spans: list[tuple[float, float]] = []
    began: float | None = None
    for line in log_path.read_text(errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        message = entry.get("msg")
        if message == "renewing the embedded broker":
            began = _wall(entry)
        elif message in ("embedded broker renewed", "embedded broker renewal stopped") and began is not None:
            spans.append((began, _wall(entry)))
            began = None
    return spans


def renewal_p99s(outcome: Outcome) -> tuple[Percentiles | None, Percentiles | None, int, int]:
    """Live p99 across renewals and between them, over the whole live stream, with the answer counts."""
    across: list[float] = []
    between: list[float] = []
    for wall, latency, _status in latency_at(outcome.runs[0]):
        inside = any(began <= wall <= ended for began, ended in outcome.renewals)
        (across if inside else between).append(latency)
    return (
        percentiles(across) if len(across) >= 2 else None,
        percentiles(between) if len(between) >= 2 else None,
        len(across),
        len(between),
    )


def measure(args: argparse.Namespace, tmp: Path) -> Outcome:
    outcome = Outcome(count=args.count)
    env = {
        "SVC_WEBHOOK_RATE_LIMIT_PER_MINUTE": str(10**9),
        "SVC_WEBHOOK_RATE_LIMIT_PER_DAY": str(10**12),
        "SVC_REPLAY_RATE_PER_SECOND": str(args.rate),
        **renewal_env(args),
        **stack_settings(args.set),
    }
    with (
        helper_server("handler", tmp) as (handler_url, handler_pid),
        running_stack(tmp / "data", env) as stack,
        httpx.Client(base_url=stack.url, timeout=120) as client,
    ):
        company = stack.admin(
            "create-company", "--name", "Replay Shop", "--admin-email", "admin@replay.example"
        )
        key = company["poweruserKey"]
        tool = stack.admin(
            "create-resource", "--company-id", company["companyId"], "--type", "TOOL",
            "--name", "recorder", "--endpoint", f"{handler_url}/run",
        )  # fmt: skip
        orders_id, _ = create_webhook(client, key, tool["resourceId"], "orders")
        live_id, live_key = create_webhook(client, key, tool["resourceId"], "live")
        live_path = f"{TRIGGER}?resourceId={live_id}"
        progress(f"seeding {args.count:,} FAILED executions of 'orders' through sinks/db")
        began = time.monotonic()
        ids = seed_failed(stack, company["companyId"], orders_id, tool["resourceId"], args.count)
        outcome.seed_seconds = time.monotonic() - began
        if count_status(client, key, orders_id, "FAILED") != args.count:
            raise RuntimeError("the history does not count the seeded executions")

        # One live stream covers alone, the replay and after: no gap, one warm-up, nothing else differs.
        calls = -(-args.count // args.per_call)
        during = args.during or args.count / args.rate * 1.1 + (calls - 1) * args.call_gap + 30
        generator = Generator("raw", args.connections, tmp)
        stream, measured_from = live_stream(
            generator, stack, live_path, live_key, args.live_rate, args.seconds + during + args.seconds
        )
        stream_end = measured_from + args.seconds + during + args.seconds
        progress(f"live traffic at {args.live_rate:g}/s; alone for {args.seconds:g} s")
        replay_at = measured_from + args.seconds
        outcome.alone = (measured_from, replay_at)
        processes = stack_processes(stack, handler_pid)
        sleep_until(measured_from)
        outcome.cpu.append((time.time(), cpu_snapshot(processes)))
        outcome.server.append(trigger_histogram(stack.metrics_url))
        sleep_until(replay_at)
        outcome.cpu.append((time.time(), cpu_snapshot(processes)))
        outcome.server.append(trigger_histogram(stack.metrics_url))
        progress(f"replaying {args.count:,} at {args.rate:g}/s (live traffic for up to {during:,.0f} s)")
        replayer = Replayer(
            stack.url, key, orders_id, ids, processes, stack.metrics_url, args.per_call, args.call_gap
        )
        replayer.start()
        follow_replay(client, key, orders_id, replayer, outcome, until=stream_end - args.seconds)
        replayer.done.wait()  # normally long done: the calls record everything before the hand-over ends
        outcome.cpu.append((replayer.calls[-1].ended if replayer.calls else time.time(), replayer.cpu_after))
        outcome.cpu.append((time.time(), cpu_snapshot(processes)))
        outcome.server.append(trigger_histogram(stack.metrics_url))
        outcome.calls = replayer.calls
        outcome.during = (replay_at, outcome.replay_finished or time.time())
        if outcome.replay_finished is None:
            progress(f"  the replay outlasted the live stream: {outcome.succeeded + outcome.failed:,} ended")
        else:
            left = stream_end - time.time()
            progress(f"  every replay ended; live alone again until the stream ends ({left:.0f} s)")
            outcome.after.append((0, outcome.replay_finished, stream_end))
        outcome.runs.append(stream.join())
        if outcome.replay_finished is None:
            outcome.replay_finished = wait_handled(client, key, orders_id, outcome, args)
            if outcome.replay_finished is not None:
                progress(f"live after the replay: {args.seconds:g} s")
                stream, measured_from = live_stream(
                    generator, stack, live_path, live_key, args.live_rate, args.seconds
                )
                outcome.runs.append(stream.join())
                outcome.after.append((1, measured_from, measured_from + args.seconds))
        if stack.process.poll() is not None:
            raise RuntimeError(f"svc up exited with {stack.process.returncode} during the run")
        outcome.renewals = renewals_in(stack.stderr_path)
        progress("stopping svc up")
    return outcome


def wait_handled(
    client: httpx.Client, key: str, webhook_id: str, outcome: Outcome, args: argparse.Namespace
) -> float | None:
    """Until every replay ended (the wall time it was seen), or a bound past the paced end."""
    deadline = time.time() + args.count / args.rate * 2 + 300
    while time.time() < deadline:
        if handled(client, key, webhook_id, outcome):
            return time.time()
        time.sleep(2)
    return None


# ------------------------------------------------------------------------------ report


def _in_call(calls: list[Call], wall: float) -> bool:
    return any(call.began <= wall < call.ended for call in calls)


def during_windows(outcome: Outcome) -> tuple[Window, Window, Window]:
    """The live requests of the replay: all of them, those sent while a /replay call ran, the others."""
    whole = Window("during: all", 202)
    recording = Window("during: /replay calls", 202)
    handover = Window("during: paced hand-over", 202)
    begin, end = outcome.during
    for wall, latency, status in latency_at(outcome.runs[0]):
        if not begin <= wall < end:
            continue
        for part in (whole, recording if _in_call(outcome.calls, wall) else handover):
            part.offered += 1
            part.statuses[status] += 1
            if status == "202":
                part.latencies_ms.append(latency)
    return whole, recording, handover


def alone_windows(outcome: Outcome) -> tuple[Window, Window, Window]:
    """Before the replay, after it, and both (the baseline)."""
    before = window("alone: before", outcome.runs[0], begin=outcome.alone[0], end=outcome.alone[1])
    after = Window("alone: after", 202)
    for run, begin, end in outcome.after:
        after = after.merged(window("alone: after", outcome.runs[run], begin=begin, end=end))
    return before, after, before.merged(after, "alone: both (baseline)")


def _delta(after: dict[str, float], before: dict[str, float]) -> tuple[float, float]:
    return after.get("count", 0.0) - before.get("count", 0.0), after.get("sum", 0.0) - before.get("sum", 0.0)


def _mean_ms(count: float, total: float) -> float | None:
    return total / count * 1000 if count > 0 else None


def server_means(
    outcome: Outcome, before: Window, recording: Window, handover: Window, whole: Window
) -> None:
    """The ingress's own mean time per live trigger (middleware in to out, no queueing before it): alone,
    while /replay calls ran, and the rest of the replay."""
    if len(outcome.server) < 3:
        return
    alone, replay, over = outcome.server
    before.server_mean_ms = _mean_ms(*_delta(replay, alone))
    count, total = _delta(over, replay)
    whole.server_mean_ms = _mean_ms(count, total)
    in_calls = [_delta(call.after, call.before) for call in outcome.calls if call.before and call.after]
    calls_count, calls_total = sum(c for c, _ in in_calls), sum(t for _, t in in_calls)
    recording.server_mean_ms = _mean_ms(calls_count, calls_total)
    handover.server_mean_ms = _mean_ms(count - calls_count, total - calls_total)


def timeline(outcome: Outcome) -> list[str]:
    """Live p99 per slice of the replay, with the /replay calls running in each: do spikes line up?"""
    slices: dict[int, list[float]] = {}
    begin, end = outcome.during
    for wall, latency, _status in latency_at(outcome.runs[0]):
        if begin <= wall < end:
            slices.setdefault(int((wall - begin) // TIMELINE_SLICE_SECONDS), []).append(latency)
    lines = [f"  {'s after 1st call':>16} {'live p99 ms':>11} {'max ms':>8}  /replay call running"]
    for index in sorted(slices):
        values = slices[index]
        start = begin + index * TIMELINE_SLICE_SECONDS
        running = [
            str(number)
            for number, call in enumerate(outcome.calls, 1)
            if call.began < start + TIMELINE_SLICE_SECONDS and call.ended > start
        ]
        p99 = f"{percentiles(values).p99:.1f}" if len(values) >= 2 else "-"
        offset = index * TIMELINE_SLICE_SECONDS
        lines.append(f"  {offset:>16.0f} {p99:>11} {max(values):>8.1f}  {', '.join(running) or '-'}")
    return lines


def share_cell(before: float, after: float, seconds: float) -> str:
    """A process's share of a core over a span, or n/a when it was restarted meanwhile (its CPU is lost)."""
    return f"{(after - before) / seconds:>9.0%}" if after >= before > 0 else f"{'n/a':>9}"


def cpu_lines(outcome: Outcome, recorded: int) -> list[str]:
    """Each process's share of a core alone, while the /replay calls ran and during the paced hand-over,
    and the ingress's CPU per recorded replay above its rate alone: the replay's cost, which the load
    average moves far less than it moves latency."""
    if len(outcome.cpu) < 4:
        return []
    names = list(outcome.cpu[0][1])
    spans = [("alone", 0, 1), ("/replay calls", 1, 2), ("hand-over", 2, 3)]
    lines = ["CPU, share of one core: " + "  ".join(f"{name:>9}" for name in names)]
    for label, first, last in spans:
        (began, before), (ended, after) = outcome.cpu[first], outcome.cpu[last]
        seconds = ended - began
        if seconds < 1:
            continue
        shares = "  ".join(share_cell(before[name], after[name], seconds) for name in names)
        lines.append(f"  {label:<21} {shares}   ({seconds:.0f} s)")
    lines.append("  (n/a: the process was restarted in that span, the embedded broker's renewal say)")
    (a0, alone0), (a1, alone1) = outcome.cpu[0], outcome.cpu[1]
    (c0, call0), (c1, call1) = outcome.cpu[1], outcome.cpu[2]
    if "ingress" in names and recorded:
        alone_rate = (alone1["ingress"] - alone0["ingress"]) / max(a1 - a0, 1e-9)
        extra = (call1["ingress"] - call0["ingress"]) - alone_rate * (c1 - c0)
        lines.append(
            f"ingress CPU per recorded replay (above its rate alone): {extra / recorded * 1000:.2f} ms"
        )
    return lines


def ratio(during: Percentiles | None, base: Percentiles | None) -> float | None:
    if during is None or base is None:
        return None
    return during.p99 / base.p99


def report(outcome: Outcome, args: argparse.Namespace, load: tuple[float, float]) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {load[0]:.2f} before the run, "
        f"{load[1]:.2f} at its end (the run itself adds about 2)"
    )
    loop_delay = max(float(run["loopDelayP99Ms"]) for run in outcome.runs)
    print(
        f"live: raw client in its own process, {args.connections} connections, open loop at "
        f"{args.live_rate:g}/s, one stream (warm-up {WARMUP_SECONDS:g} s); generator loop delay p99 "
        f"{loop_delay:.1f} ms"
    )
    if args.set:
        print(f"stack settings: {' '.join(args.set)}")
    print()
    print(
        f"seeded FAILED executions     {outcome.count:,} in {outcome.seed_seconds:.1f} s (sinks/db, direct)"
    )
    recorded = sum(call.replayed for call in outcome.calls)
    if outcome.calls:
        spent = sum(call.ended - call.began for call in outcome.calls)
        durations = ", ".join(f"{call.ended - call.began:.2f}" for call in outcome.calls)
        print(
            f"/replay calls                {len(outcome.calls)} of up to {args.per_call:,} ids: {recorded:,} "
            f"recorded in {spent:.2f} s of calls ({durations} s)"
        )
    if outcome.replay_finished is not None:
        elapsed = outcome.replay_finished - outcome.during[0]
        print(
            f"replay throughput            {outcome.count / elapsed:,.1f} executions/s over {elapsed:,.0f} s "
            f"(first call to the last one's end; SVC_REPLAY_RATE_PER_SECOND={args.rate:g})"
        )
        print(f"replays ended                {outcome.succeeded:,} SUCCESS, {outcome.failed:,} FAILED")
    else:
        print("replay throughput            not measured: the replays did not all end in time")
    print()
    for line in cpu_lines(outcome, recorded):
        print(line)
    print()
    before, after, base = alone_windows(outcome)
    whole, recording, handover = during_windows(outcome)
    server_means(outcome, before, recording, handover, whole)
    for line in table([before, after, base, recording, handover, whole]):
        print(line)
    print()
    if args.timeline:
        print("timeline of the replay (live p99 per slice):")
        for line in timeline(outcome):
            print(line)
        print()
        renewal_report(outcome)
    misses: list[str] = []
    drift = ratio(after.latency, before.latency)
    if drift is not None and not 1 / DRIFT_LIMIT <= drift <= DRIFT_LIMIT:
        misses.append(
            f"the baseline drifted: live p99 alone after the replay is {drift:.2f}x of before it (limit "
            f"{DRIFT_LIMIT:g}x either way), so no ratio of this run is valid"
        )
        print(misses[-1])
    for part in (whole, recording, handover):
        value = ratio(part.latency, base.latency)
        if value is None:
            if part is whole:
                misses.append("no live answers during the replay")
            continue
        print(f"live p99 ratio, {part.name:<24} {value:.2f}x of alone ({len(part.latencies_ms):,} answers)")
        if value > TARGET_RATIO and part is not handover:
            misses.append(f"{part.name} {value:.2f}x > {TARGET_RATIO:g}x")
    unexpected = sum(sum(part.unexpected.values()) for part in (base, whole))
    if unexpected:
        misses.append(f"{unexpected} live answers other than 202")
        print(f"live answers other than 202: {describe_statuses(base.unexpected + whole.unexpected)}")
    if recorded != outcome.count:
        misses.append(f"{recorded:,} of {outcome.count:,} replays recorded")
    if outcome.replay_finished is None:
        misses.append("replays not all ended")
    elif outcome.failed:
        misses.append(f"{outcome.failed:,} replays FAILED")
    print(
        f"target: live p99 during the replay (all of it, and while /replay calls ran) within "
        f"{TARGET_RATIO:g}x of alone: " + ("PASS" if not misses else "FAIL (" + "; ".join(misses) + ")")
    )


def renewal_report(outcome: Outcome) -> None:
    """The live trigger's p99 while the embedded broker renews against between renewals, same stream."""
    across, between, n_across, n_between = renewal_p99s(outcome)
    lengths = ", ".join(f"{ended - began:.1f}" for began, ended in outcome.renewals)
    print(f"embedded broker renewals     {len(outcome.renewals)} ({lengths or '-'} s)")
    if across is None or between is None:
        print("RESULT renewal_p99_ratio=n/a (no live answers across a renewal, or none between)")
        return
    value = across.p99 / between.p99 if between.p99 > 0 else float("inf")
    print(
        f"RESULT renewal_p99_ratio={value:.2f} across_p99_ms={across.p99:.2f} "
        f"between_p99_ms={between.p99:.2f} renewals={len(outcome.renewals)} answers_across={n_across} "
        f"answers_between={n_between} target<=1.5 {'PASS' if value <= TARGET_RATIO else 'FAIL'}"
    )
    print()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=100_000, help="FAILED executions to replay")
    parser.add_argument("--rate", type=float, default=50.0, help="SVC_REPLAY_RATE_PER_SECOND")
    parser.add_argument("--live-rate", type=float, default=100.0, help="live triggers per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="live alone before and after the replay")
    parser.add_argument(
        "--during",
        type=float,
        default=0.0,
        help="longest live traffic during the replay, s (0: the paced replay's length + 10%% + 30 s)",
    )
    parser.add_argument("--connections", type=int, default=64, help="the live generator's connection pool")
    parser.add_argument(
        "--per-call", type=int, default=PER_CALL, help="executionIds per /replay call (≤ 10,000)"
    )
    parser.add_argument(
        "--call-gap",
        type=float,
        default=0.0,
        help="seconds between two /replay calls (0: back to back); with gaps, live traffic alternates "
        "between calls running and not, which compares the two in the same stretch of time",
    )
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="print the live p99 per 5 s of the replay, and across the embedded broker's renewals against "
        "between them (RESULT renewal_p99_ratio)",
    )
    parser.add_argument(
        "--renew-records",
        type=int,
        default=0,
        help="SVC_EMBEDDED_BROKER_RENEW_RECORDS for the stack, so renewals happen during the run (0: the "
        "stack's default)",
    )
    parser.add_argument(
        "--renew-min-seconds",
        type=float,
        default=20.0,
        help="SVC_EMBEDDED_BROKER_RENEW_MIN_SECONDS with --renew-records",
    )
    add_set_argument(parser)
    args = parser.parse_args()
    if args.count < 1 or args.rate <= 0 or args.live_rate <= 0 or args.seconds <= 0 or args.call_gap < 0:
        print("--count, --rate, --live-rate and --seconds must be positive", file=sys.stderr)
        return 2
    if not 1 <= args.per_call <= PER_CALL:
        print(f"--per-call must be 1 to {PER_CALL:,}", file=sys.stderr)
        return 2
    load_before = load_average()
    progress(f"1-minute load average before the run: {load_before:.2f}")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-replay-", ignore_cleanup_errors=True) as tmp:
            outcome = measure(args, Path(tmp))
    except Exception:
        traceback.print_exc()
        return 1
    report(outcome, args, (load_before, load_average()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
