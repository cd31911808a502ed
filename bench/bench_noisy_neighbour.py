"""Tenant isolation of the webhook trigger: a victim's 202 latency alone and while a hostile company attacks.

The real stack runs as ``svc up`` (embedded broker, one worker, one ingress, SQLite on a temp data dir). A
victim company's webhook (a plain JSONPath, handled by bench_webhook_load's recording handler) gets an
open-loop stream at ``--rate``; after a warm-up and an ``alone`` window, a hostile company starts sending
``--attack-rate`` triggers a second, round robin over three costly webhooks of its own (recursive JSONPath
over a ~100 KB nested body, a validation script with a catastrophic regex, a transform script that never
ends). Then, in a ``queried`` window, another hostile company sends short heavy queries at its concurrency
limit (``SVC_QUERY_MAX_CONCURRENT`` callers, each sending its next query when the last one ended): a CPU-bound
self-join of a small table, calibrated before the run to take about 60% of the inline budget, so each is
just under the inline limits (scan estimate and budget) and the ingress answers one in the call while the
rest run on the worker. One victim stream covers every window, so they differ only by the attack. Latency
counts from each request's scheduled send time (no coordinated omission). Times are printed, never asserted;
the process exits 1 only when the stack fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _common import (
    REPO,
    Stack,
    add_set_argument,
    cpu_seconds,
    descendants,
    progress,
    running_stack,
    stack_settings,
)
from _phases import wait_first_request
from bench_webhook_load import (
    TRIGGER,
    Generator,
    Step,
    body_for,
    helper_server,
    poweruser,
    stack_processes,
    summarise,
    trigger_histogram,
)

sys.path.insert(0, str(REPO))
from tests.tpch.service import AnalyticsClient, ServiceError, create_tables

TARGET_P99_RATIO = 1.5
SUSTAINED_SHARE = 0.99
# The victim's stream runs this much longer than warm-up plus both phases: the phases start when its first
# answer is seen, which on a busy machine can be a second or more after the stream began.
STREAM_SLACK_SECONDS = 5.0
ATTACK_TIMEOUT_SECONDS = 30.0
CATASTROPHIC_REGEX = "return /^(a+)+$/.test('a'.repeat(40) + 'b')"
VICTIM_CONFIG: dict[str, Any] = {
    "name": "victim-orders",
    "payloadTransformConfig": {"transformType": "JSONPATH", "jsonPathMappings": {"id": "$.order.id"}},
    "executionSettings": {"timeoutSeconds": 10, "maxRetries": 0, "retryDelaySeconds": 1},
}
# (label, webhook config): each costs the sandbox as much as its budgets allow.
HOSTILE_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("jsonpath $..*..*", {"payloadTransformConfig": {"jsonPathMappings": {"all": "$..*..*"}}}),
    (
        "regex validation",
        {"validationConfig": {"enableValidation": True, "validationScript": CATASTROPHIC_REGEX}},
    ),
    (
        "spinning transform",
        {"payloadTransformConfig": {"transformType": "SVC_SCRIPT", "transformScript": "while(true){}"}},
    ),
]


QUERY_TABLE: dict[str, Any] = {
    "sqlName": "events",
    "name": "Events",
    "columns": [{"name": "x", "type": "LONG"}, {"name": "g", "type": "LONG"}],
}
QUERY_ROWS = 12_000
APPEND_CHUNK = 500
# The share of the inline budget each hostile query is calibrated to take: under the limit, not at it.
QUERY_SHARE_OF_BUDGET = 0.6
INLINE_BUDGET_MS = 1_000.0  # SVC_QUERY_INLINE_BUDGET_MS's default; --set it and pass --inline-budget-ms too
QUERY_CONCURRENCY = 8  # SVC_QUERY_MAX_CONCURRENT's default


def heavy_sql(limit: int) -> str:
    """A self-join that counts; its cost grows with ``limit`` (the rows of one side), its scan does not."""
    return (
        "SELECT count(*) AS n FROM events a, events b "  # noqa: S608 - a number, not input
        f"WHERE a.x < {int(limit)} AND (a.x * 7 + b.g) % 13 = 0"
    )


def nested_body(depth: int = 60, width: int = 60) -> bytes:
    """About 100 KB of nested objects and arrays: the shape that makes recursive descent costly."""
    node: dict[str, Any] = {"leaf": "x" * 8}
    for level in range(depth):
        node = {"level": level, "items": [node] + [{"n": i, "s": "v" * 8} for i in range(width)]}
    return json.dumps(node).encode()


# ------------------------------------------------------------------------------ set-up


def create_company(stack: Stack, name: str) -> tuple[str, str]:
    email = f"admin@{name.lower().replace(' ', '-')}.example"
    company = stack.admin("create-company", "--name", name, "--admin-email", email)
    return str(company["companyId"]), str(company["poweruserKey"])


def create_webhook(stack: Stack, key: str, config: dict[str, Any]) -> tuple[str, str]:
    with httpx.Client(base_url=stack.url, timeout=30) as client:
        created = poweruser(client, key, "create", {"webhookConfig": config})
    return str(created["webhook"]["id"]), str(created["apiKey"])


def create_victim(stack: Stack, handler_url: str) -> tuple[str, str]:
    company_id, key = create_company(stack, "Victim Shop")
    resource = stack.admin(
        "create-resource",
        *("--company-id", company_id, "--type", "TOOL", "--name", "recorder", "--endpoint", handler_url),
    )
    execution = {
        "resourceType": "TOOL",
        "resourceId": resource["resourceId"],
        "variables": {"order": "@@{id}"},
    }
    return create_webhook(stack, key, {**VICTIM_CONFIG, "resourceExecutionConfig": execution})


@dataclass(frozen=True)
class HostileTarget:
    label: str
    path: str
    key: str
    body: bytes


def create_hostile(stack: Stack) -> list[HostileTarget]:
    _, key = create_company(stack, "Hostile Corp")
    targets = []
    for label, config in HOSTILE_CONFIGS:
        webhook_id, api_key = create_webhook(stack, key, {"name": label.replace(" ", "-"), **config})
        body = nested_body() if label.startswith("jsonpath") else body_for(0)
        targets.append(HostileTarget(label, f"{TRIGGER}?resourceId={webhook_id}", api_key, body))
    return targets


@dataclass(frozen=True)
class HostileQueries:
    key: str
    table_id: str
    sql: str
    run_ms: float  # the calibrated query's time, answered in the call on a quiet stack


def _timed_query(analytics: AnalyticsClient, sql: str) -> float:
    """Milliseconds from the call until the query's whole result was read (the cache off)."""
    began = time.perf_counter()
    analytics.query(sql)
    return (time.perf_counter() - began) * 1000


def create_hostile_queries(stack: Stack, budget_ms: float) -> HostileQueries:
    """A company with a table of QUERY_ROWS rows and the heavy query calibrated to QUERY_SHARE_OF_BUDGET of
    the inline budget."""
    company = stack.admin(
        "create-company", "--name", "Query Corp", "--admin-email", "admin@query-corp.example"
    )
    with httpx.Client(base_url=stack.url, timeout=60) as client:
        table_id = create_tables(client, str(company["poweruserKey"]), {"events": QUERY_TABLE})["events"]
        analytics = AnalyticsClient(client, str(company["clientApiKey"]), table_id)
        for first in range(0, QUERY_ROWS, APPEND_CHUNK):
            rows = [
                {"x": i, "g": (i * 31) % 997} for i in range(first, min(QUERY_ROWS, first + APPEND_CHUNK))
            ]
            analytics.call("append-rows", {"rows": rows})
        deadline = time.monotonic() + 120
        while True:
            counted = analytics.query("SELECT count(*) AS n FROM events").rows[0]["n"]
            if counted == QUERY_ROWS:
                break
            if time.monotonic() > deadline:
                raise ServiceError(f"the query table holds {counted} of {QUERY_ROWS} rows after 120 s")
            time.sleep(0.5)
        target = QUERY_SHARE_OF_BUDGET * budget_ms
        limit, took = QUERY_ROWS // 4, 0.0
        for _ in range(5):
            took = min(_timed_query(analytics, heavy_sql(limit)) for _ in range(2))
            limit = max(1, min(QUERY_ROWS, round(limit * target / max(took, 1.0))))
        took = min(_timed_query(analytics, heavy_sql(limit)) for _ in range(2))
    return HostileQueries(str(company["clientApiKey"]), table_id, heavy_sql(limit), took)


# ------------------------------------------------------------------------------ the attacker


@dataclass
class Attack:
    statuses: dict[str, Counter[str]] = field(default_factory=dict)
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    error: str = ""


async def _attack(url: str, targets: list[HostileTarget], rate: float, begin: float, end: float) -> Attack:
    """Paced sends from ``begin`` until ``end`` (wall clock), round robin over the targets."""
    found = Attack({t.label: Counter() for t in targets}, {t.label: [] for t in targets})
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=ATTACK_TIMEOUT_SECONDS, limits=limits) as client:

        async def one(target: HostileTarget) -> None:
            began = time.perf_counter()
            headers = {"Authorization": target.key, "Content-Type": "application/json"}
            try:
                answer = await client.post(target.path, content=target.body, headers=headers)
                outcome = str(answer.status_code)
            except httpx.TimeoutException:
                outcome = "timeout"
            except httpx.HTTPError as exc:
                outcome = type(exc).__name__
            found.statuses[target.label][outcome] += 1
            found.latencies_ms[target.label].append((time.perf_counter() - began) * 1000)

        running: set[asyncio.Task[None]] = set()
        index = 0
        while (due := begin + index / rate) < end:
            await asyncio.sleep(max(0.0, due - time.time()))
            task = asyncio.create_task(one(targets[index % len(targets)]))
            running.add(task)
            task.add_done_callback(running.discard)
            index += 1
        if running:
            await asyncio.wait(set(running))
    return found


class Attacker:
    """The hostile company's sender on its own thread (and event loop) of this process."""

    def __init__(self, url: str, targets: list[HostileTarget], rate: float, begin: float, end: float) -> None:
        self.found = Attack()
        self._thread = threading.Thread(
            target=self._run, args=(url, targets, rate, begin, end), name="attacker", daemon=True
        )
        self._thread.start()

    def _run(self, url: str, targets: list[HostileTarget], rate: float, begin: float, end: float) -> None:
        try:
            self.found = asyncio.run(_attack(url, targets, rate, begin, end))
        except Exception as exc:
            self.found.error = f"{type(exc).__name__}: {exc}"

    def join(self) -> Attack:
        self._thread.join()
        return self.found


@dataclass
class QueryAttack:
    in_call: int = 0  # answered final by /query itself (the ingress ran it, or a worker within waitMs)
    through_jobs: int = 0  # answered by /job-status later (a worker ran it)
    states: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


class QueryAttacker:
    """QUERY_CONCURRENCY callers of the hostile query company, each sending its next query when its last one
    ended, from ``begin`` until ``end`` (wall clock), on threads of this process."""

    def __init__(self, url: str, hostile: HostileQueries, begin: float, end: float, budget_ms: float) -> None:
        self.found = QueryAttack()
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(
                target=self._run, args=(url, hostile, begin, end, budget_ms), name=f"query-{i}", daemon=True
            )
            for i in range(QUERY_CONCURRENCY)
        ]
        for thread in self._threads:
            thread.start()

    def _run(self, url: str, hostile: HostileQueries, begin: float, end: float, budget_ms: float) -> None:
        sleep_until(begin)
        with httpx.Client(base_url=url, timeout=60) as client:
            analytics = AnalyticsClient(client, hostile.key, hostile.table_id)
            while time.time() < end:
                began = time.perf_counter()
                try:
                    body = analytics.call(
                        "query", {"sql": hostile.sql, "waitMs": int(budget_ms), "useQueryCache": False}
                    )
                    in_call = body["state"] not in {"QUEUED", "RUNNING"}
                    while body["state"] in {"QUEUED", "RUNNING"}:
                        body = analytics.call("job-status", {"jobId": body["jobId"], "waitMs": 20_000})
                except (ServiceError, httpx.HTTPError) as exc:
                    with self._lock:
                        self.found.errors[str(exc)[:40]] += 1
                    time.sleep(0.1)
                    continue
                with self._lock:
                    self.found.states[str(body["state"])] += 1
                    self.found.latencies_ms.append((time.perf_counter() - began) * 1000)
                    if in_call:
                        self.found.in_call += 1
                    else:
                        self.found.through_jobs += 1

    def join(self) -> QueryAttack:
        for thread in self._threads:
            thread.join()
        return self.found


# ------------------------------------------------------------------------------ CPU per process


def cpu_snapshot(processes: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of the stack's processes, the sandbox workers of the ingress and worker (live ones
    plus those already reaped, whose time their parent's cutime/cstime holds), the load generator and this
    process (the attacker)."""
    found = {name: cpu_seconds(pid) for name, pid in processes.items()}
    sandbox = 0.0
    for name in ("ingress", "worker"):
        pid = processes.get(name)
        if pid is None:
            continue
        sandbox += sum(cpu_seconds(child) for child in descendants(pid))
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            sandbox += (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    found["sandbox"] = sandbox
    generators = [pid for pid, command in descendants(os.getpid()).items() if " load " in command]
    found["generator"] = sum(cpu_seconds(pid) for pid in generators)
    found["attacker"] = time.process_time()
    return found


# ------------------------------------------------------------------------------ the run


@dataclass
class Phase:
    name: str
    step: Step
    max_ms: float
    cpu_share: dict[str, float]


@dataclass
class Outcome:
    phases: list[Phase] = field(default_factory=list)
    warmup_errors: Counter[str] = field(default_factory=Counter)
    warmup_seconds: float = 0.0
    attack: Attack = field(default_factory=Attack)
    queries: QueryAttack = field(default_factory=QueryAttack)
    hostile_queries: HostileQueries | None = None
    loop_delay_p99_ms: float = 0.0
    generator_share: float = 0.0


def phase_of(
    name: str, result: dict[str, Any], begin: float, end: float, cpu: list[dict[str, float]]
) -> Phase:
    """The samples scheduled between two wall times, summarised as bench_webhook_load summarises a step."""
    start_wall = float(result["startWall"])
    offset, until = begin - start_wall, end - start_wall
    inside = [sample for sample in result["samples"] if sample[0] < until]
    step = summarise(name, {**result, "warmup": offset, "seconds": until - offset, "samples": inside})
    latencies = [(done - at) * 1000 for at, done, outcome, *_ in inside if at >= offset and outcome == 202]
    shares = {key: (cpu[1][key] - cpu[0][key]) / (end - begin) for key in cpu[0]}
    return Phase(name, step, max(latencies, default=0.0), shares)


def sleep_until(wall: float) -> None:
    time.sleep(max(0.0, wall - time.time()))


def measure(args: argparse.Namespace, tmp: Path) -> Outcome:
    outcome = Outcome()
    with (
        helper_server("handler", tmp) as (handler_url, handler_pid),
        running_stack(tmp / "data", stack_settings(args.set)) as stack,
    ):
        progress(f"svc is up at {stack.url}; the victim's handler listens at {handler_url}")
        webhook_id, api_key = create_victim(stack, f"{handler_url}/run")
        targets = create_hostile(stack)
        hostile_queries = create_hostile_queries(stack, args.inline_budget_ms)
        outcome.hostile_queries = hostile_queries
        progress(
            f"hostile query: {hostile_queries.sql!r}, {hostile_queries.run_ms:.0f} ms in the call, quiet"
        )
        victim_path = f"{TRIGGER}?resourceId={webhook_id}"
        check = httpx.post(
            f"{stack.url}{victim_path}",
            content=body_for(0),
            headers={"Authorization": api_key, "Content-Type": "application/json"},
            timeout=30,
        )
        if check.status_code != 202:
            raise RuntimeError(f"the victim's trigger answered {check.status_code}: {check.text[:300]}")
        processes = stack_processes(stack, handler_pid)
        progress(f"victim webhook {webhook_id}, 3 hostile webhooks; processes {processes}")

        generator = Generator(args.client, args.connections, tmp)
        results: list[dict[str, Any]] = []
        failures: list[BaseException] = []

        def drive() -> None:
            try:
                results.append(
                    generator.run(
                        stack.url,
                        victim_path,
                        api_key,
                        rate=args.rate,
                        warmup=args.warmup,
                        seconds=3 * args.seconds + STREAM_SLACK_SECONDS,
                        closed=False,
                    )
                )
            except BaseException as exc:
                failures.append(exc)

        count_before = trigger_histogram(stack.metrics_url).get("count", 0.0)
        victim = threading.Thread(target=drive, name="victim", daemon=True)
        victim.start()
        first = wait_first_request(stack.metrics_url, count_before)
        alone_at = first + args.warmup
        attack_at = alone_at + args.seconds
        attack_end = attack_at + args.seconds
        query_end = attack_end + args.seconds
        progress(f"victim at {args.rate:g}/s; warm-up {args.warmup:g} s, then alone for {args.seconds:g} s")
        attacker = Attacker(stack.url, targets, args.attack_rate, attack_at, attack_end)
        query_attacker = QueryAttacker(
            stack.url, hostile_queries, attack_end, query_end, args.inline_budget_ms
        )
        sleep_until(alone_at)
        cpu = [cpu_snapshot(processes)]
        sleep_until(attack_at)
        cpu.append(cpu_snapshot(processes))
        progress(f"hostile company starts: {args.attack_rate:g} triggers/s for {args.seconds:g} s")
        sleep_until(attack_end)
        cpu.append(cpu_snapshot(processes))
        progress(
            f"trigger attack over; hostile queries at {QUERY_CONCURRENCY} at once for {args.seconds:g} s"
        )
        sleep_until(query_end)
        cpu.append(cpu_snapshot(processes))
        progress("attacks over; waiting for the last answers")
        victim.join()
        attack = attacker.join()
        outcome.queries = query_attacker.join()
        if failures:
            raise failures[0]
        if stack.process.poll() is not None:
            raise RuntimeError(f"svc up exited with {stack.process.returncode} during the run")
        result = results[0]
        if float(result["startWall"]) + float(result["warmup"]) + float(result["seconds"]) < query_end:
            raise RuntimeError("the victim's stream ended before the attacked phase did")
        outcome.attack = attack
        outcome.phases = [
            phase_of("alone", result, alone_at, attack_at, cpu[0:2]),
            phase_of("attacked", result, attack_at, attack_end, cpu[1:3]),
            phase_of("queried", result, attack_end, query_end, cpu[2:4]),
        ]
        start_wall = float(result["startWall"])
        outcome.warmup_seconds = alone_at - start_wall
        outcome.warmup_errors = Counter(
            str(sample[2])
            for sample in result["samples"]
            if sample[0] < alone_at - start_wall and sample[2] != 202
        )
        outcome.loop_delay_p99_ms = float(result["loopDelayP99Ms"])
        outcome.generator_share = float(result["cpuSeconds"]) / float(result["wallSeconds"])
        progress("stopping svc up")
    return outcome


# ------------------------------------------------------------------------------ report


def _errors(counter: Counter[str]) -> str:
    return ", ".join(f"{key}: {value}" for key, value in sorted(counter.items())) or "0"


def report(outcome: Outcome, args: argparse.Namespace, load: tuple[float, float]) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {load[0]:.2f} before the run, {load[1]:.2f} "
        "at its end (the run itself adds about 2)"
    )
    print(
        f"victim: {args.client} client in its own process, {args.connections} connections, open loop at "
        f"{args.rate:g}/s; warm-up {outcome.warmup_seconds:.1f} s, then {args.seconds:g} s alone, "
        f"{args.seconds:g} s attacked by triggers and {args.seconds:g} s by queries; latency from the "
        "scheduled send time"
    )
    print(
        f"generator health: loop delay p99 {outcome.loop_delay_p99_ms:.1f} ms, "
        f"{outcome.generator_share:.0%} of a core over the whole run"
    )
    if args.set:
        print(f"stack settings: {' '.join(args.set)}")
    print()
    header = f"{'phase':<9} | {'ach/s':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} | non-202"
    print(header)
    print("-" * len(header))
    for phase in outcome.phases:
        latency = phase.step.latency
        cells = f"{latency.p50:>8.1f} {latency.p95:>8.1f} {latency.p99:>8.1f}" if latency else f"{'-':>26}"
        print(
            f"{phase.name:<9} | {phase.step.achieved:>6.0f} {cells} {phase.max_ms:>8.1f} | "
            f"{_errors(phase.step.errors)}"
        )
    print(f"warm-up non-202: {_errors(outcome.warmup_errors)}")
    print()
    print(f"hostile company: {args.attack_rate:g} triggers/s round robin, answers by webhook")
    if outcome.attack.error:
        print(f"  the attacker failed: {outcome.attack.error}")
    for label, statuses in outcome.attack.statuses.items():
        times = sorted(outcome.attack.latencies_ms.get(label, []))
        median = times[len(times) // 2] if times else 0.0
        print(
            f"  {label:<19} sent {sum(statuses.values()):>4}: {_errors(statuses):<28} "
            f"answer p50 {median:.0f} ms, max {times[-1] if times else 0.0:.0f} ms"
        )
    queries, hostile = outcome.queries, outcome.hostile_queries
    times = sorted(queries.latencies_ms)
    print()
    print(
        f"hostile queries: {QUERY_CONCURRENCY} callers, each {hostile.run_ms if hostile else 0:.0f} ms alone "
        f"in the call; ended {sum(queries.states.values())} ({_errors(queries.states)}), "
        f"{queries.in_call} answered in the call, {queries.through_jobs} through a worker's job; "
        f"p50 {times[len(times) // 2] if times else 0:.0f} ms; refused or failed: {_errors(queries.errors)}"
    )
    print()
    names = list(outcome.phases[0].cpu_share) if outcome.phases else []
    print("CPU per process, share of one core during each phase (sandbox = the ingress's and worker's")
    print("script workers; attacker = this benchmark's process)")
    header = f"{'phase':<9} | " + " ".join(f"{name:>9}" for name in names)
    print(header)
    print("-" * len(header))
    for phase in outcome.phases:
        print(f"{phase.name:<9} | " + " ".join(f"{phase.cpu_share[name]:>9.0%}" for name in names))
    print()
    verdict(outcome, args)


def verdict(outcome: Outcome, args: argparse.Namespace) -> None:
    alone, *attacks = outcome.phases
    misses = [f"fewer than two 202s {phase.name}" for phase in outcome.phases if phase.step.latency is None]
    for attacked in attacks:
        if alone.step.latency is None or attacked.step.latency is None:
            continue
        ratios = {
            "p99": attacked.step.latency.p99 / alone.step.latency.p99,
            "p50": attacked.step.latency.p50 / alone.step.latency.p50,
            "max": attacked.max_ms / alone.max_ms,
        }
        print(
            f"{attacked.name} / alone: " + ", ".join(f"{name} {value:.2f}x" for name, value in ratios.items())
        )
        if ratios["p99"] > TARGET_P99_RATIO:
            misses.append(f"{attacked.name} p99 ratio {ratios['p99']:.2f}x > {TARGET_P99_RATIO:g}x")
    if alone.step.achieved < SUSTAINED_SHARE * args.rate:
        print(
            f"caution: alone, the stack answered {alone.step.achieved:.0f} of {args.rate:g} triggers/s, so "
            "the phases measure a backlog more than isolation"
        )
    victim_errors = sum(sum(phase.step.errors.values()) for phase in outcome.phases)
    if victim_errors:
        misses.append(f"{victim_errors} non-202 victim answers")
    print(
        f"target: attacked and queried p99 within {TARGET_P99_RATIO:g}x of alone, no non-202 victim answer: "
        + ("PASS" if not misses else "FAIL (" + "; ".join(misses) + ")")
    )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rate", type=float, default=300.0, help="the victim's triggers per second")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase (alone, attacked)")
    parser.add_argument("--warmup", type=float, default=5.0, help="victim load before the alone phase")
    parser.add_argument("--attack-rate", type=float, default=12.0, help="hostile triggers per second")
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="the victim's client (raw: bench_webhook_load's keep-alive HTTP/1.1 client, a fraction of "
        "httpx's CPU, which on 2 cores is taken from the stack under test)",
    )
    parser.add_argument("--connections", type=int, default=64, help="the victim's connection pool size")
    parser.add_argument(
        "--inline-budget-ms",
        type=float,
        default=INLINE_BUDGET_MS,
        help="the stack's SVC_QUERY_INLINE_BUDGET_MS, which the hostile query is calibrated against",
    )
    add_set_argument(parser)
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    if args.rate <= 0 or args.attack_rate <= 0 or args.seconds <= 0 or args.warmup < 0:
        print("--rate, --attack-rate and --seconds must be positive, --warmup not negative", file=sys.stderr)
        return 2
    # Anything else running on the 2 cores skews every number; the load averages make that visible.
    load_before = os.getloadavg()[0]
    progress(f"1-minute load average before the run: {load_before:.2f} on {os.cpu_count()} CPUs")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-noisy-neighbour-", ignore_cleanup_errors=True) as name:
            outcome = measure(args, Path(name))
    except Exception:
        traceback.print_exc()
        return 1
    # A FAIL is a finding, not a broken benchmark: only a stack that could not run ends with 1.
    report(outcome, args, (load_before, os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
