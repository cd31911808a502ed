"""Destinations (issue 44): another company's handler lag alone and beside a burst at a small endpoint, and
how the burst itself is delivered.

The real stack runs as ``svc up`` on its defaults (SQLite on a temp data dir, one ingress, one worker, the
embedded broker). Company B's webhook delivers to bench_webhook_load's recording handler (a process of its
own, always 200 at once, noting each call's arrival and executionId). Company A's webhook delivers to the
tests' ``LimitedEndpoint`` in this process: 4 slots (a semaphore of 4 around a 50 ms call, an accept queue of
5), counting the calls in flight and the most it saw; A's handler resource has ``maxConcurrency`` 4.

1. ``alone``: B's stream alone, open loop at ``--rate`` for ``--seconds`` after ``--warmup`` (bench_webhook_
   load's generator in its own process). The lag of a delivery is from its trigger's scheduled send time to
   the handler receiving the call (no coordinated omission).
2. ``beside``: the same B stream again; as its measured window begins, A sends a burst of ``--burst``
   triggers (a second generator at ``--burst-rate``). B's lag is counted for the requests sent while A's
   deliveries were still going (A's first send to its last call's end), and over the whole window. For A:
   the time from its first send to its last call's end, the most calls in flight the endpoint saw, and A's
   attempts from the execution history (each must be attemptNumber 1: a delivery waiting for its
   destination burns no attempt). ``/svc_poweruser/destinations/get-all`` is read every second meanwhile.
3. ``beside a fast burst`` (the floor): the same B stream again beside the same burst from a third company C
   whose handler is fast and unlimited (B's recording handler, ``maxConcurrency`` at the worker's 256): what
   2,000 triggers at 400/s cost B on this stack when no destination waits. B's lag over that whole window,
   against the same window beside A, tells what A's waiting destination adds to the burst's own cost.

Times are printed, never asserted; the exit status is 1 only when the stack fails. On 2 shared cores every
figure moves with the machine's load average, which is printed.

    .venv/bin/python bench/bench_destinations.py                  # about 2.5 minutes
    .venv/bin/python bench/bench_destinations.py --set SVC_NAME=VALUE ...
"""

from __future__ import annotations

import argparse
import functools
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
    Percentiles,
    Stack,
    add_set_argument,
    percentiles,
    progress,
    running_stack,
    shape_line,
    stack_settings,
)
from _phases import Stream, describe_statuses, load_average, wait_first_request
from bench_webhook_load import (
    TRIGGER,
    WEBHOOK_CONFIG,
    Generator,
    Handler,
    helper_server,
    poweruser,
    trigger_histogram,
    wait_delivered,
)

sys.path.insert(0, str(REPO))
from tests.fixtures.limited_endpoint import LimitedEndpoint, serving

TARGET_LAG_RATIO = 1.5
SLOTS = 4
# C's handler resource: the worker's own concurrency (SVC_WORKER_CONCURRENCY), so nothing of C's waits.
FAST_MAX_CONCURRENCY = 256
CALL_SECONDS = 0.05
DESTINATIONS = "/svc_poweruser/destinations/get-all"
# Past A's floor (burst x call / slots) this much longer, A's deliveries count as not done.
A_GRACE_SECONDS = 300.0
DELIVERY_GRACE_SECONDS = 60.0
HISTORY_PAGE = 100
# A has retries to spend, so an attempt burned while waiting for the destination would show in its history.
A_EXECUTION = {"timeoutSeconds": 10, "maxRetries": 3, "retryDelaySeconds": 1}


# ------------------------------------------------------------------------------ set-up


def create_company(stack: Stack, name: str, endpoint: str, *limits: str) -> tuple[str, str]:
    """A company with one TOOL resource at ``endpoint``: its poweruser key and the resource's id."""
    email = f"admin@{name.lower().replace(' ', '-')}.example"
    company = stack.admin("create-company", "--name", name, "--admin-email", email)
    resource = stack.admin(
        "create-resource", "--company-id", company["companyId"], "--type", "TOOL",
        "--name", f"{name.lower().replace(' ', '-')}-tool", "--endpoint", endpoint, *limits,
    )  # fmt: skip
    return str(company["poweruserKey"]), str(resource["resourceId"])


def create_webhook(
    client: httpx.Client, key: str, resource_id: str, name: str, execution: dict[str, Any]
) -> tuple[str, str]:
    created = poweruser(client, key, "create", {"webhookConfig": {"name": name}})
    webhook_id = str(created["webhook"]["id"])
    config = {
        **WEBHOOK_CONFIG,
        "name": name,
        "executionSettings": execution,
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": resource_id,
            "variables": {"order": "@@{orderId}", "total": "@@{total}", "email": "@@{email}"},
        },
    }
    poweruser(client, key, "update", {"webhookId": webhook_id, "webhookConfig": config})
    return webhook_id, str(created["apiKey"])


# ------------------------------------------------------------------------------ measurement


@dataclass
class Lags:
    """B's requests scheduled inside one window: how many were sent, accepted and seen by the handler."""

    name: str
    sent: int = 0
    accepted: int = 0
    lags_ms: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)

    @property
    def lag(self) -> Percentiles | None:
        return percentiles(self.lags_ms) if len(self.lags_ms) >= 2 else None


def lags_of(name: str, result: dict[str, Any], arrivals: dict[str, float], begin: float, end: float) -> Lags:
    """Handler lag (arrival - scheduled send, both wall times) of the requests scheduled in [begin, end)."""
    start_wall = float(result["startWall"])
    found = Lags(name)
    for sample in result["samples"]:
        if not sample:
            continue
        scheduled, _done, outcome, execution_id, _done_wall = sample
        sent_at = start_wall + scheduled
        if not begin <= sent_at < end:
            continue
        found.sent += 1
        found.statuses[str(outcome)] += 1
        if outcome != 202 or not execution_id:
            continue
        found.accepted += 1
        arrived = arrivals.get(str(execution_id))
        if arrived is not None:
            found.lags_ms.append((arrived - sent_at) * 1000)
    return found


def accepted_ids(result: dict[str, Any]) -> set[str]:
    return {str(sample[3]) for sample in result["samples"] if sample and sample[2] == 202 and sample[3]}


def measured_window(result: dict[str, Any]) -> tuple[float, float]:
    """Wall times of a run's measured part: from the end of its warm-up to its end."""
    start = float(result["startWall"]) + float(result["warmup"])
    return start, start + float(result["seconds"])


@dataclass
class Watch:
    """What /destinations/get-all said about A's destination while its burst was delivered."""

    most_waiting: int = 0
    most_in_flight: int = 0
    states: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)


class DestinationWatcher:
    """Reads A's destination once a second on a thread of this process until stopped."""

    def __init__(self, url: str, key: str, resource_id: str) -> None:
        self.watch = Watch()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(url, key, resource_id), name="destinations", daemon=True
        )
        self._thread.start()

    def _run(self, url: str, key: str, resource_id: str) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while not self._stop.wait(1.0):
                try:
                    answer = client.post(DESTINATIONS, json={}, headers={"Authorization": key})
                except httpx.HTTPError as exc:
                    self.watch.errors[type(exc).__name__] += 1
                    continue
                if answer.status_code != 200:
                    self.watch.errors[str(answer.status_code)] += 1
                    continue
                for destination in answer.json()["destinations"]:
                    if destination["resourceId"] == resource_id:
                        self.watch.states[str(destination["state"])] += 1
                        self.watch.most_waiting = max(self.watch.most_waiting, int(destination["waiting"]))
                        self.watch.most_in_flight = max(
                            self.watch.most_in_flight, int(destination["inFlight"])
                        )

    def stop(self) -> Watch:
        self._stop.set()
        self._thread.join()
        return self.watch


def history(client: httpx.Client, key: str, webhook_id: str) -> list[dict[str, Any]]:
    """Every entry of a webhook's execution history (one per attempt), page by page."""
    found: list[dict[str, Any]] = []
    page = 0
    while True:
        body = {"webhookId": webhook_id, "size": HISTORY_PAGE, "page": page}
        answer = poweruser(client, key, "get-execution-history", body)
        found += answer["history"]
        page += 1
        if page >= int(answer["totalPages"]):
            return found


@dataclass
class Burst:
    """Company A's burst: sent, accepted, delivered, and how."""

    sent: int = 0
    accepted: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    first_send: float = 0.0  # wall times
    last_call: float = 0.0
    done: bool = False
    most_in_flight: int = 0
    endpoint_calls: int = 0
    endpoint_executions: int = 0
    delivered: int = 0  # executions with a SUCCESS entry in the history
    attempts: Counter[int] = field(default_factory=Counter)  # attemptNumber -> entries
    history_statuses: Counter[str] = field(default_factory=Counter)
    waited_ms: list[float] = field(default_factory=list)
    watch: Watch = field(default_factory=Watch)

    @property
    def seconds(self) -> float:
        return self.last_call - self.first_send

    @property
    def attempts_beyond_first(self) -> int:
        return sum(count for number, count in self.attempts.items() if number > 1)


def wait_endpoint(endpoint: LimitedEndpoint, wanted: set[str], deadline_wall: float) -> bool:
    """Until the endpoint answered a call of every wanted execution (True), or the deadline."""
    reported = time.time()
    while time.time() < deadline_wall:
        seen = {str(body.get("executionId")) for body in endpoint.succeeded()}
        if wanted <= seen:
            return True
        if time.time() - reported >= 10:
            reported = time.time()
            progress(f"  A: {len(wanted & seen):,} of {len(wanted):,} delivered")
        time.sleep(0.2)
    return False


def read_burst(
    burst: Burst, result: dict[str, Any], endpoint: LimitedEndpoint, entries: list[dict[str, Any]]
) -> None:
    for sample in result["samples"]:
        if sample:
            burst.sent += 1
            burst.statuses[str(sample[2])] += 1
    burst.accepted = len(accepted_ids(result))
    with endpoint.lock:
        calls = list(endpoint.calls)
        burst.most_in_flight = endpoint.most_in_flight
    burst.endpoint_calls = len(calls)
    burst.endpoint_executions = len({str(call["body"].get("executionId")) for call in calls})
    burst.last_call = max((float(call["at"]) for call in calls), default=burst.first_send)
    burst.delivered = len({entry["executionId"] for entry in entries if entry["status"] == "SUCCESS"})
    burst.attempts = Counter(int(entry["attemptNumber"]) for entry in entries)
    burst.history_statuses = Counter(str(entry["status"]) for entry in entries)
    burst.waited_ms = [float(entry["waitedMs"]) for entry in entries if entry.get("waitedMs") is not None]


@dataclass
class Outcome:
    shape: str = ""
    alone: Lags = field(default_factory=lambda: Lags("alone"))
    beside: Lags = field(default_factory=lambda: Lags("beside: while A ran"))
    beside_window: Lags = field(default_factory=lambda: Lags("beside: whole window"))
    # B's requests sent while A's deliveries went on but its triggers had stopped arriving (a second after
    # its last send): the destination's share of B's lag, without the burst's intake on the same cores.
    after_intake: Lags = field(default_factory=lambda: Lags("beside: after A's intake"))
    # B beside the same burst from company C to a fast, unlimited handler: the burst's cost with no waiting.
    beside_fast: Lags = field(default_factory=lambda: Lags("beside a fast burst"))
    burst: Burst = field(default_factory=Burst)
    trigger_p99_ms: dict[str, float] = field(default_factory=dict)


def trigger_p99(result: dict[str, Any]) -> float:
    """The p99 of B's 202s in a run's measured part (the ingress side of the picture)."""
    begin = float(result["warmup"])
    latencies = [
        (sample[1] - sample[0]) * 1000
        for sample in result["samples"]
        if sample and sample[0] >= begin and sample[2] == 202
    ]
    return percentiles(latencies).p99 if len(latencies) >= 2 else float("nan")


def run_alone(
    stack: Stack, handler: Handler, generator: Generator, path: str, key: str, args: argparse.Namespace
) -> tuple[Lags, float]:
    base = handler.count()
    result = generator.run(
        stack.url, path, key, rate=args.rate, warmup=args.warmup, seconds=args.seconds, closed=False
    )
    begin, end = measured_window(result)
    progress(f"  alone: {len(accepted_ids(result)):,} accepted; waiting for the handler to see them")
    wait_delivered(handler, base, accepted_ids(result), end + DELIVERY_GRACE_SECONDS)
    return lags_of("alone", result, handler.arrivals(base), begin, end), trigger_p99(result)


def start_b(stack: Stack, generator: Generator, b: tuple[str, str], args: argparse.Namespace) -> Stream:
    """B's stream (path, key) started in the background; returns once its measured window begins."""
    before = trigger_histogram(stack.metrics_url).get("count", 0.0)
    run = functools.partial(generator.run, stack.url, b[0], b[1], rate=args.rate, closed=False)
    b_stream = Stream(functools.partial(run, warmup=args.warmup, seconds=args.seconds))
    window_at = wait_first_request(stack.metrics_url, before) + args.warmup
    time.sleep(max(0.0, window_at - time.time()))
    return b_stream


def run_beside_fast(
    stack: Stack,
    handler: Handler,
    generator: Generator,
    b: tuple[str, str],
    c: tuple[str, str],
    args: argparse.Namespace,
) -> tuple[Lags, float]:
    """B's stream beside C's burst (as A's, at its window's start) to a fast handler with no limit to wait
    for: B's lag over its whole measured window."""
    base = handler.count()
    b_stream = start_b(stack, generator, b, args)
    c_result = generator.run(
        stack.url,
        c[0],
        c[1],
        rate=args.burst_rate,
        warmup=0,
        seconds=args.burst / args.burst_rate,
        closed=False,
    )
    b_result = b_stream.join()
    begin, end = measured_window(b_result)
    wait_delivered(
        handler, base, accepted_ids(b_result) | accepted_ids(c_result), end + DELIVERY_GRACE_SECONDS
    )
    return lags_of("beside a fast burst", b_result, handler.arrivals(base), begin, end), trigger_p99(b_result)


def measure(args: argparse.Namespace, tmp: Path) -> Outcome:
    outcome = Outcome()
    settings = stack_settings(args.set)
    outcome.shape = shape_line(settings, None)
    with (
        helper_server("handler", tmp) as (handler_url, _handler_pid),
        serving(LimitedEndpoint(slots=SLOTS, call_seconds=CALL_SECONDS)) as endpoint,
        running_stack(tmp / "data", settings) as stack,
        httpx.Client(base_url=stack.url, timeout=60) as client,
    ):
        progress(f"svc is up at {stack.url}; B's handler at {handler_url}, A's endpoint at {endpoint.url}")
        b_key, b_tool = create_company(stack, "Fast Shop", f"{handler_url}/run")
        a_key, a_tool = create_company(
            stack, "Burst Shop", endpoint.url, "--max-concurrency", str(args.max_concurrency)
        )
        b_hook, b_api_key = create_webhook(client, b_key, b_tool, "fast", WEBHOOK_CONFIG["executionSettings"])
        a_hook, a_api_key = create_webhook(client, a_key, a_tool, "burst", A_EXECUTION)
        b_path, a_path = f"{TRIGGER}?resourceId={b_hook}", f"{TRIGGER}?resourceId={a_hook}"
        handler = Handler(handler_url)
        generator = Generator("raw", args.connections, tmp)

        progress(f"1. alone: B at {args.rate:g}/s, warm-up {args.warmup:g} s, {args.seconds:g} s measured")
        outcome.alone, outcome.trigger_p99_ms["alone"] = run_alone(
            stack, handler, generator, b_path, b_api_key, args
        )

        progress(f"2. beside: B at {args.rate:g}/s again, A's burst of {args.burst:,} at its window's start")
        base = handler.count()
        b_stream = start_b(stack, generator, (b_path, b_api_key), args)
        watcher = DestinationWatcher(stack.url, a_key, a_tool)
        burst_seconds = args.burst / args.burst_rate
        a_result = generator.run(
            stack.url, a_path, a_api_key, rate=args.burst_rate, warmup=0, seconds=burst_seconds, closed=False
        )
        burst = outcome.burst
        burst.first_send = float(a_result["startWall"])
        wanted = accepted_ids(a_result)
        progress(f"  A: {len(wanted):,} of {args.burst:,} accepted; waiting for the endpoint to answer them")
        floor = args.burst * CALL_SECONDS / SLOTS
        burst.done = wait_endpoint(endpoint, wanted, burst.first_send + floor + A_GRACE_SECONDS)
        burst.watch = watcher.stop()
        b_result = b_stream.join()
        begin, end = measured_window(b_result)
        wait_delivered(handler, base, accepted_ids(b_result), end + DELIVERY_GRACE_SECONDS)
        if stack.process.poll() is not None:
            raise RuntimeError(f"svc up exited with {stack.process.returncode} during the run")
        arrivals = handler.arrivals(base)
        read_burst(burst, a_result, endpoint, history(client, a_key, a_hook))
        outcome.beside = lags_of("beside: while A ran", b_result, arrivals, begin, min(end, burst.last_call))
        outcome.beside_window = lags_of("beside: whole window", b_result, arrivals, begin, end)
        intake_end = burst.first_send + burst_seconds + 1.0
        outcome.after_intake = lags_of(
            "beside: after A's intake", b_result, arrivals, max(begin, intake_end), min(end, burst.last_call)
        )
        outcome.trigger_p99_ms["beside"] = trigger_p99(b_result)

        progress(f"3. beside a fast burst: B at {args.rate:g}/s, C's {args.burst:,} to a fast handler")
        c_key, c_tool = create_company(
            stack, "Quick Shop", f"{handler_url}/run", "--max-concurrency", str(FAST_MAX_CONCURRENCY)
        )
        c_hook, c_api_key = create_webhook(
            client, c_key, c_tool, "quick", WEBHOOK_CONFIG["executionSettings"]
        )
        outcome.beside_fast, outcome.trigger_p99_ms["beside a fast burst"] = run_beside_fast(
            stack,
            handler,
            generator,
            (b_path, b_api_key),
            (f"{TRIGGER}?resourceId={c_hook}", c_api_key),
            args,
        )
        handler.close()
        progress("stopping svc up")
    return outcome


# ------------------------------------------------------------------------------ report


def lag_table(outcome: Outcome) -> list[str]:
    header = (
        f"{'B phase':<24} | {'sent':>5} {'202':>5} {'seen':>5} | {'lag p50':>8} {'p95':>8} {'p99':>8} "
        f"{'max':>8} ms | non-202"
    )
    lines = [header, "-" * len(header)]
    for lags in (
        outcome.alone,
        outcome.beside,
        outcome.beside_window,
        outcome.after_intake,
        outcome.beside_fast,
    ):
        lag = lags.lag
        cells = f"{lag.p50:>8.1f} {lag.p95:>8.1f} {lag.p99:>8.1f}" if lag else f"{'-':>26}"
        peak = f"{max(lags.lags_ms):>8.1f}" if lags.lags_ms else f"{'-':>8}"
        others = Counter({status: n for status, n in lags.statuses.items() if status != "202"})
        lines.append(
            f"{lags.name:<24} | {lags.sent:>5} {lags.accepted:>5} {len(lags.lags_ms):>5} | {cells} {peak} "
            f"ms | {describe_statuses(others) if others else '0'}"
        )
    return lines


def report(outcome: Outcome, args: argparse.Namespace, load: tuple[float, float]) -> None:
    burst = outcome.burst
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {load[0]:.2f} before the run, {load[1]:.2f} "
        "at its end"
    )
    print(outcome.shape)
    if args.set:
        print(f"stack settings: {' '.join(args.set)}")
    print(
        f"B: raw client in its own process, open loop at {args.rate:g}/s, warm-up {args.warmup:g} s, "
        f"{args.seconds:g} s measured; lag = handler arrival - scheduled send"
    )
    print(
        f"A: {args.burst:,} triggers at {args.burst_rate:g}/s to an endpoint of {SLOTS} slots x "
        f"{CALL_SECONDS * 1000:.0f} ms, maxConcurrency {args.max_concurrency}, maxRetries "
        f"{A_EXECUTION['maxRetries']}"
    )
    print()
    for line in lag_table(outcome):
        print(line)
    trigger = ", ".join(f"{name} {value:.1f} ms" for name, value in outcome.trigger_p99_ms.items())
    print(f"B's trigger 202 p99: {trigger}")
    print()
    waited = percentiles(burst.waited_ms) if len(burst.waited_ms) >= 2 else None
    print(
        f"A: sent {burst.sent:,} ({describe_statuses(burst.statuses)}), accepted {burst.accepted:,}; "
        f"{'all delivered' if burst.done else 'NOT all delivered in time'} {burst.seconds:.1f} s after "
        "the first send"
    )
    print(
        f"A at the endpoint: {burst.endpoint_calls:,} calls of {burst.endpoint_executions:,} executions, "
        f"at most {burst.most_in_flight} in flight"
    )
    print(
        f"A's history: {sum(burst.attempts.values()):,} entries "
        f"({describe_statuses(burst.history_statuses)}), by attemptNumber "
        f"{dict(sorted(burst.attempts.items()))}" + (f"; waitedMs p50/p95/p99 {waited}" if waited else "")
    )
    watch = burst.watch
    print(
        f"A's destination (get-all, once a second): states {dict(watch.states)}, at most "
        f"{watch.most_waiting} waiting and {watch.most_in_flight} in flight"
        + (f"; errors {describe_statuses(watch.errors)}" if watch.errors else "")
    )
    print()
    alone, beside = outcome.alone.lag, outcome.beside.lag
    ratio = f"{beside.p99 / alone.p99:.2f}" if alone and beside else "n/a"
    print(f"RESULT b_lag_p99_ratio={ratio} (target <= {TARGET_LAG_RATIO:g})")
    window, fast = outcome.beside_window.lag, outcome.beside_fast.lag
    floor_ratio = f"{fast.p99 / alone.p99:.2f}" if alone and fast else "n/a"
    over_floor = f"{window.p99 / fast.p99:.2f}" if window and fast else "n/a"
    print(f"RESULT b_lag_p99_floor_ratio={floor_ratio} (beside a fast, unlimited burst / alone: the floor)")
    print(f"RESULT b_lag_p99_over_floor={over_floor} (beside A's whole window / beside a fast burst)")
    print(f"RESULT a_most_in_flight={burst.most_in_flight} (limit {args.max_concurrency})")
    beyond = burst.attempts_beyond_first
    print(f"RESULT a_delivered={burst.delivered}/{args.burst} a_attempts_beyond_first={beyond}")
    floor = args.burst * CALL_SECONDS / SLOTS
    print(f"RESULT a_seconds={burst.seconds:.1f} (floor {args.burst}*{CALL_SECONDS:g}/{SLOTS}={floor:g} s)")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rate", type=float, default=50.0, help="B's triggers per second")
    parser.add_argument("--seconds", type=float, default=30.0, help="B's measured time in each phase")
    parser.add_argument("--warmup", type=float, default=2.0, help="B's load before each measured window")
    parser.add_argument("--burst", type=int, default=2000, help="A's triggers")
    parser.add_argument("--burst-rate", type=float, default=400.0, help="A's triggers per second")
    parser.add_argument("--max-concurrency", type=int, default=SLOTS, help="A's handler resource's limit")
    parser.add_argument("--connections", type=int, default=64, help="each generator's connection pool")
    add_set_argument(parser)
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    if args.rate <= 0 or args.seconds <= 0 or args.warmup < 0 or args.burst < 1 or args.burst_rate <= 0:
        print("--rate, --seconds, --burst and --burst-rate must be positive, --warmup not negative")
        return 2
    load_before = load_average()
    progress(f"1-minute load average before the run: {load_before:.2f} on {os.cpu_count()} CPUs")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-destinations-", ignore_cleanup_errors=True) as name:
            outcome = measure(args, Path(name))
    except Exception:
        traceback.print_exc()
        return 1
    report(outcome, args, (load_before, load_average()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
