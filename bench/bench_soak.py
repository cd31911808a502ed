"""Soak (issue 43): does ``svc up`` stay bounded under steady traffic with a short history retention?

``svc up`` on its defaults in a temporary data dir (SQLite, local object store, embedded broker) with
``SVC_HISTORY_RETENTION_SECONDS`` and ``SVC_RETENTION_SWEEP_SECONDS`` short, and one webhook delivering to
bench_webhook_load's recording handler (its own process, always 200). bench_webhook_load's open-loop
generator (raw keep-alive client, its own process; latency counted from each request's scheduled send time)
sends ``--rate`` triggers a second for ``--minutes``. Every sample interval the bench reads the SQLite file
and its WAL, the object store's bytes (every file under the data dir's ``objects/``) and the resident memory
(VmRSS) of every process of the stack's tree: the supervisor (``svc up``), the ingress, the worker, the
embedded broker and any other child. After the run each interval gets the 202 p99 of the requests scheduled
in it.

Three verdicts, on windows that scale with ``--minutes`` (the issue's run is 20 minutes):

1. storage flat: the database (file + WAL) plus the object store over the last half of the run (10 of 20
   minutes): the mean of its last 5 minutes within 10% of the mean of the 5 before. A bounded level saws
   (each sweep deletes what built up since the last; the broker's renewal frees its memory), so the rule
   compares levels, not single samples;
2. memory flat: the same rule for each process's resident memory;
3. latency steady: the 202 p99 of the last quarter (5 of 20 minutes) is within 1.3x the first quarter's.

The sample interval (30 s), the retention (120 s) and the sweep interval (30 s) scale the same way unless
given, so a short run keeps the long run's proportions: ``--minutes 2`` samples every 3 s with a 12 s
retention. The exit status is 1 when a verdict fails or the stack fails, 0 otherwise. On shared cores every
figure moves with the machine's load, which is printed.

    .venv/bin/python bench/bench_soak.py                    # the issue's run: 20 minutes at 300/s
    .venv/bin/python bench/bench_soak.py --minutes 2        # the same proportions in 2 minutes
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _common import (
    REPO,
    Stack,
    add_set_argument,
    percentiles,
    progress,
    running_stack,
    stack_roles,
    stack_settings,
)
from _phases import Stream, latency_at, load_average, wait_first_request
from bench_webhook_load import (
    MAX_CONCURRENCY,
    TRIGGER,
    Generator,
    Handler,
    body_for,
    create_webhook,
    helper_server,
    trigger_histogram,
)

REFERENCE_MINUTES = 20.0
"""The issue's run; every window and interval below is given for it and scales with ``--minutes``."""
SAMPLE_SECONDS = 30.0
RETENTION_SECONDS = 120.0
SWEEP_SECONDS = 30.0
FLAT_SHARE = 0.5  # storage and memory are judged over the last half of the run (10 of 20 minutes)
LATENCY_SHARE = 0.25  # the first and last quarter's 202 p99s are compared (5 of 20 minutes)
FLAT_LIMIT = 0.10
P99_LIMIT = 1.3
MIN_SAMPLE_SECONDS = 2.0
DELIVERY_GRACE_SECONDS = 60.0


@dataclass
class Sample:
    at: float  # seconds since the load began
    database_bytes: int | None  # SQLite file + WAL; None on another database
    wal_bytes: int | None
    object_bytes: int
    memory_mib: dict[str, float]
    p99_ms: float | None = None  # of the requests scheduled since the previous sample
    entries: int | None = None  # history entries kept (SQLite): what retention leaves at any moment
    free_pages: int | None = None  # pages on the SQLite file's free list, not yet given back
    sent: int = 0
    failed: int = 0  # answers other than 202, timeouts and errors

    @property
    def storage_bytes(self) -> int:
        return (self.database_bytes or 0) + self.object_bytes


@dataclass
class Verdict:
    name: str
    passed: bool
    detail: str


@dataclass
class Plan:
    seconds: float
    sample_seconds: float
    retention_seconds: int
    sweep_seconds: float

    @classmethod
    def of(cls, args: argparse.Namespace) -> Plan:
        scale = args.minutes / REFERENCE_MINUTES
        return cls(
            seconds=args.minutes * 60,
            sample_seconds=args.sample_seconds or max(MIN_SAMPLE_SECONDS, SAMPLE_SECONDS * scale),
            retention_seconds=args.retention_seconds or max(1, round(RETENTION_SECONDS * scale)),
            sweep_seconds=args.sweep_seconds or max(1.0, SWEEP_SECONDS * scale),
        )


@dataclass
class Run:
    plan: Plan
    rate: float
    samples: list[Sample] = field(default_factory=list)
    accepted: int = 0
    delivered: int = 0
    load: tuple[float, float] = (0.0, 0.0)
    settings: dict[str, str] = field(default_factory=dict)
    sweeps: list[dict[str, Any]] = field(default_factory=list)  # the worker's "retention sweep" log lines


# ------------------------------------------------------------------------------ measuring


def file_bytes(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def tree_bytes(root: Path) -> int:
    """Bytes of every file under ``root`` (an object store's objects, its multipart staging included)."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except FileNotFoundError:  # deleted while walked
                continue
    return total


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def tree_memory(stack: Stack) -> dict[str, float]:
    """Resident MiB of ``svc up`` itself and of every process below it, by role (``_common.stack_roles``)."""
    from sinks.embedded_broker.watch import resident_mib

    processes = {"supervisor": stack.process.pid} | stack_roles(stack.process.pid)
    found: dict[str, float] = {}
    for name, pid in processes.items():
        resident = resident_mib(pid)
        if resident is not None:
            found[name] = resident
    return found


def kept(database: Path) -> tuple[int | None, int | None]:
    """History entries kept and free pages of the SQLite file, read-only; (None, None) if it cannot tell."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
            entries = connection.execute(
                "SELECT coalesce(sum(entries), 0) FROM webhook_execution_counts"
            ).fetchone()
            free = connection.execute("PRAGMA freelist_count").fetchone()
    except sqlite3.Error:
        return None, None
    return int(entries[0]), int(free[0])


def take_sample(stack: Stack, data_dir: Path, began: float, sqlite: bool) -> Sample:
    database = data_dir / "svc.db"
    wal = file_bytes(database.with_name("svc.db-wal")) if sqlite else None
    entries, free_pages = kept(database) if sqlite else (None, None)
    return Sample(
        at=time.time() - began,
        database_bytes=file_bytes(database) + (wal or 0) if sqlite else None,
        wal_bytes=wal,
        object_bytes=tree_bytes(data_dir / "objects"),
        memory_mib=tree_memory(stack),
        entries=entries,
        free_pages=free_pages,
    )


def add_latencies(samples: list[Sample], result: dict[str, Any], began: float) -> None:
    """Each sample's 202 p99 over the requests scheduled since the sample before it."""
    answered = [(scheduled - began, latency, outcome) for scheduled, latency, outcome in latency_at(result)]
    for before, sample in zip([None, *samples], samples, strict=False):
        low = before.at if before is not None else float("-inf")
        inside = [(latency, outcome) for at, latency, outcome in answered if low <= at < sample.at]
        ok = [latency for latency, outcome in inside if outcome == "202"]
        sample.sent = len(inside)
        sample.failed = len(inside) - len(ok)
        sample.p99_ms = percentiles(ok).p99 if len(ok) >= 2 else None


def window_p99(result: dict[str, Any], began: float, low: float, high: float) -> float | None:
    ok = [
        latency
        for scheduled, latency, outcome in latency_at(result)
        if outcome == "202" and low <= scheduled - began < high
    ]
    return percentiles(ok).p99 if len(ok) >= 2 else None


# ------------------------------------------------------------------------------ verdicts


def drift(values: list[float]) -> float | None:
    """How far the mean of the window's second half is from the mean of its first half, as a share of the
    first: a level that saws up and down (the sweep deleting, the broker's renewal) but stays bounded drifts
    by about 0; one that keeps growing drifts by what it grew. Means, not peaks: with a sample every 30 s and
    a sweep every 30 s, which phase of the saw a sample catches is chance, and one sample sets a peak. None
    with fewer than two values."""
    if len(values) < 2:
        return None
    half = len(values) // 2
    before, after = statistics.fmean(values[:half]), statistics.fmean(values[half:])
    if before <= 0:
        return 0.0 if after <= 0 else float("inf")
    return abs(after - before) / before


def flat(name: str, values: list[float], unit: str) -> Verdict:
    found = drift(values)
    if found is None:
        return Verdict(name, False, "too few samples in the window")
    half = len(values) // 2
    detail = (
        f"mean {statistics.fmean(values[:half]):,.1f} then {statistics.fmean(values[half:]):,.1f} {unit} "
        f"(drift {found:.1%}); peak {max(values[:half]):,.1f} then {max(values[half:]):,.1f} {unit}; "
        f"min {min(values):,.1f}, max {max(values):,.1f} {unit}"
    )
    return Verdict(name, found <= FLAT_LIMIT, detail)


def verdicts(run: Run, first_p99: float | None, last_p99: float | None) -> list[Verdict]:
    start = run.plan.seconds * (1 - FLAT_SHARE)
    late = [sample for sample in run.samples if sample.at >= start]
    mib = 1024 * 1024
    found = [flat("storage flat (DB + WAL + objects)", [s.storage_bytes / mib for s in late], "MiB")]
    names = sorted({name for sample in run.samples for name in sample.memory_mib})
    for name in names:
        values = [s.memory_mib[name] for s in late if name in s.memory_mib]
        verdict = flat(f"memory flat: {name}", values, "MiB")
        if len(values) < len(late):  # gone or restarted in the window: its figures do not tell
            verdict = Verdict(verdict.name, False, f"{verdict.detail}; absent from some samples")
        found.append(verdict)
    if first_p99 is None or last_p99 is None:
        found.append(Verdict("202 p99 steady", False, "too few 202s in the first or last window"))
    else:
        ratio = last_p99 / first_p99
        detail = f"first {first_p99:.1f} ms, last {last_p99:.1f} ms, {ratio:.2f}x (limit {P99_LIMIT}x)"
        found.append(Verdict("202 p99 steady", ratio <= P99_LIMIT, detail))
    return found


# ------------------------------------------------------------------------------ the run


def _rate_env(plan: Plan) -> dict[str, str]:
    return {
        "SVC_HISTORY_RETENTION_SECONDS": str(plan.retention_seconds),
        "SVC_RETENTION_SWEEP_SECONDS": f"{plan.sweep_seconds:g}",
        # The generator is one client: the per-key limits would cut the stream, not the stack.
        "SVC_WEBHOOK_RATE_LIMIT_PER_MINUTE": str(10**9),
        "SVC_WEBHOOK_RATE_LIMIT_PER_DAY": str(10**12),
        "SVC_RATE_LIMIT_PER_MINUTE": "100000",
        "SVC_LOG_LEVEL": "INFO",  # the sweep's rounds are INFO lines; the report reads them
    }


def first_delivery(stack: Stack, handler: Handler, path: str, api_key: str) -> None:
    check = httpx.post(
        f"{stack.url}{path}",
        content=body_for(0),
        headers={"Authorization": api_key, "Content-Type": "application/json"},
        timeout=30,
    )
    if check.status_code != 202:
        raise RuntimeError(f"the trigger answered {check.status_code}: {check.text[:300]}")
    deadline = time.monotonic() + 60
    while handler.count() < 1:
        if time.monotonic() > deadline:
            raise RuntimeError("the first delivery did not reach the handler within 60 s")
        time.sleep(0.2)


def sample_until(
    run: Run, stack: Stack, data_dir: Path, began: float, sqlite: bool, stream: Stream
) -> dict[str, Any]:
    """A sample at the start and every interval until the run's end; then the generator's result."""
    plan = run.plan
    run.samples.append(take_sample(stack, data_dir, began, sqlite))
    index = 1
    while index * plan.sample_seconds <= plan.seconds + 1e-6:
        time.sleep(max(0.0, began + index * plan.sample_seconds - time.time()))
        sample = take_sample(stack, data_dir, began, sqlite)
        run.samples.append(sample)
        total = sample.storage_bytes / 1024 / 1024
        memory = ", ".join(f"{name} {mib:.0f}" for name, mib in sorted(sample.memory_mib.items()))
        progress(f"  {sample.at:7.1f} s: storage {total:.1f} MiB; resident MiB {memory}")
        index += 1
    return stream.join()


def measure(run: Run, args: argparse.Namespace, tmp: Path) -> tuple[dict[str, Any], float]:
    """The run's samples into ``run``; the generator's result and the wall time the load began (its first
    request at the ingress), the origin of every sample's time."""
    env = _rate_env(run.plan) | stack_settings(args.set)
    run.settings = env
    sqlite = "SVC_DATABASE_URL" not in env
    data_dir = tmp / "data"
    with helper_server("handler", tmp) as (handler_url, _pid):
        progress("starting svc up")
        with running_stack(data_dir, env) as stack:
            webhook_id, api_key = create_webhook(stack, f"{handler_url}/run", args.max_concurrency)
            path = f"{TRIGGER}?resourceId={webhook_id}"
            handler = Handler(handler_url)
            try:
                first_delivery(stack, handler, path, api_key)
                progress(f"svc is up at {stack.url}; {run.rate:g}/s for {run.plan.seconds:g} s")
                generator = Generator("raw", args.connections, tmp)
                before = trigger_histogram(stack.metrics_url).get("count", 0.0)
                stream = Stream(
                    lambda: generator.run(
                        stack.url,
                        path,
                        api_key,
                        rate=run.rate,
                        warmup=0,
                        seconds=run.plan.seconds,
                        closed=False,
                    )
                )
                began = wait_first_request(stack.metrics_url, before)
                result = sample_until(run, stack, data_dir, began, sqlite, stream)
                run.accepted = sum(1 for sample in result["samples"] if sample and sample[2] == 202)
                deadline = time.monotonic() + DELIVERY_GRACE_SECONDS
                while handler.count() - 1 < run.accepted and time.monotonic() < deadline:
                    time.sleep(0.5)
                run.delivered = handler.count() - 1
            finally:
                handler.close()
            run.sweeps = sweep_rounds(stack.stderr_path)
            progress("stopping svc up")
    return result, began


def sweep_rounds(stderr: Path) -> list[dict[str, Any]]:
    """The retention sweep's rounds as the worker logged them (one JSON line each)."""
    rounds = []
    for line in stderr.read_text(errors="replace").splitlines():
        if '"retention sweep"' not in line:
            continue
        try:
            rounds.append(json.loads(line[line.index("{") :]))
        except ValueError:
            continue
    return rounds


# ------------------------------------------------------------------------------ report


def _mib(value: int | None) -> str:
    return "-" if value is None else f"{value / 1024 / 1024:.1f}"


def report(run: Run, checks: list[Verdict]) -> None:
    plan = run.plan
    print()
    print(
        f"machine: {os.cpu_count()} CPUs, shared with other work; 1-minute load average "
        f"{run.load[0]:.2f} before the run, {run.load[1]:.2f} at its end"
    )
    print(
        f"stack: svc up on its defaults (SQLite unless SVC_DATABASE_URL is set); history retention "
        f"{plan.retention_seconds} s, sweep every {plan.sweep_seconds:g} s; {run.rate:g} deliveries/s for "
        f"{plan.seconds / 60:g} min, a sample every {plan.sample_seconds:g} s"
    )
    extra = {k: v for k, v in run.settings.items() if k not in _rate_env(plan)}
    if extra:
        print(f"stack settings: {' '.join(f'{k}={v}' for k, v in sorted(extra.items()))}")
    print(
        f"accepted {run.accepted:,}, delivered {run.delivered:,} "
        f"(within {DELIVERY_GRACE_SECONDS:g} s of the end)"
    )
    names = sorted({name for sample in run.samples for name in sample.memory_mib})
    print()
    print("storage in MiB (DB+WAL: the SQLite file and its WAL); resident memory in MiB; 202 p99 of the")
    print("requests scheduled since the previous sample")
    header = (
        f"{'t (s)':>7} | {'DB+WAL':>8} {'WAL':>7} {'objects':>8} {'entries':>8} {'free pg':>8} | "
        + " ".join(f"{name[:12]:>12}" for name in names)
        + f" | {'sent':>6} {'not 202':>7} {'p99 ms':>8}"
    )
    print(header)
    print("-" * len(header))
    for sample in run.samples:
        memory = " ".join(
            f"{sample.memory_mib[name]:>12.1f}" if name in sample.memory_mib else f"{'-':>12}"
            for name in names
        )
        p99 = f"{sample.p99_ms:>8.1f}" if sample.p99_ms is not None else f"{'-':>8}"
        print(
            f"{sample.at:>7.1f} | {_mib(sample.database_bytes):>8} {_mib(sample.wal_bytes):>7} "
            f"{_mib(sample.object_bytes):>8} {_count(sample.entries):>8} {_count(sample.free_pages):>8} | "
            f"{memory} | {sample.sent:>6} {sample.failed:>7} {p99}"
        )
    print()
    report_sweeps(run.sweeps)
    print()
    flat_from = plan.seconds * (1 - FLAT_SHARE)
    print(
        f"verdicts: storage and memory over the samples from {flat_from:g} s on (the mean of its second half "
        f"against the mean of its first, limit {FLAT_LIMIT:.0%}); 202 p99 of the last "
        f"{plan.seconds * LATENCY_SHARE:g} s against the first"
    )
    for check in checks:
        print(f"  {'PASS' if check.passed else 'FAIL'}  {check.name}: {check.detail}")


def report_sweeps(rounds: list[dict[str, Any]]) -> None:
    """Each round of the sweep: what it deleted, its batches and how long they took with their wait."""
    print(f"retention sweep: {len(rounds)} rounds that deleted something")
    if not rounds:
        return
    print(f"{'executions':>10} {'batches':>7} {'round s':>8} {'batch ms avg':>12} {'longest ms':>10}")
    for item in rounds:
        batches = item.get("batches", 0) or 1
        print(
            f"{item.get('executions', 0):>10,} {item.get('batches', 0):>7} {item.get('seconds', 0):>8.2f} "
            f"{1000 * item.get('batch_seconds', 0) / batches:>12.1f} "
            f"{1000 * item.get('longest_batch_seconds', 0):>10.1f}"
        )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=REFERENCE_MINUTES, help="length of the load")
    parser.add_argument("--rate", type=float, default=300.0, help="deliveries per second, open loop")
    parser.add_argument("--connections", type=int, default=64, help="the generator's connections")
    parser.add_argument(
        "--max-concurrency",
        type=int,
        default=MAX_CONCURRENCY,
        help="the handler resource's maxConcurrency (default: the worker's, as bench_webhook_load)",
    )
    parser.add_argument("--sample-seconds", type=float, help="default: 30 s scaled by --minutes / 20")
    parser.add_argument(
        "--retention-seconds", type=int, help="SVC_HISTORY_RETENTION_SECONDS; default: 120 s scaled"
    )
    parser.add_argument(
        "--sweep-seconds", type=float, help="SVC_RETENTION_SWEEP_SECONDS; default: 30 s scaled"
    )
    add_set_argument(parser)
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    if args.minutes <= 0 or args.rate <= 0:
        print("--minutes and --rate must be positive", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))  # this process reads /proc through the checkout's own helper
    run = Run(plan=Plan.of(args), rate=args.rate)
    load_before = load_average()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-soak-", ignore_cleanup_errors=True) as name:
            result, began = measure(run, args, Path(name))
    except Exception:
        traceback.print_exc()
        return 1
    run.load = (load_before, load_average())
    add_latencies(run.samples, result, began)
    quarter = run.plan.seconds * LATENCY_SHARE
    first = window_p99(result, began, 0, quarter)
    last = window_p99(result, began, run.plan.seconds - quarter, run.plan.seconds)
    checks = verdicts(run, first, last)
    report(run, checks)
    return 0 if all(check.passed for check in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
