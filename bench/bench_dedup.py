"""Trigger deduplication (issue 24): what an Idempotency-Key adds to the trigger's latency, in one run.

The real stack runs as ``svc up`` (SQLite, embedded broker, one ingress, one worker). One webhook (a JSONPath
transform and no handler: the worker takes each delivery off the queue and records it FAILED, ``No handler
configured``, so the database sees the delivery path's writes) gets open-loop phases at ``--rate`` from
bench_webhook_load's generator (its raw client in a process of its own; latency counted from each request's
scheduled send time, so no coordinated omission), each ``--seconds`` long after a ``--warmup`` of its own
kind, in this order:

    plain (no key) · keyed (a fresh Idempotency-Key each) · duplicate · keyed · plain

``duplicate`` sends the keys (and bodies) of the keyed phase before it again: each answers 200
``duplicate: true`` with the first delivery's executionId, and nothing is queued. The plain and keyed phases
stand symmetrically around the middle (ABBA), so a drift of the machine over the run falls on both alike.
``added p50`` = p50 of the keyed phases - p50 of the plain phases (pooled); the target is at most 1 ms.
Answers other than 202 (plain, keyed) or 200 (duplicate) are counted, and so is a duplicate answering
another executionId than its first delivery's. The ``ingress`` column is the ingress's own mean time per
trigger (its metrics histogram, warm-up included). Times are printed, never asserted; the exit status is 1
only when the stack fails. The machine's load average is printed: on 2 shared cores it moves every figure.

    .venv/bin/python bench/bench_dedup.py                       # 200/s, 15 s phases: about 2 minutes
    .venv/bin/python bench/bench_dedup.py --rate 300 --seconds 30
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from _common import progress, running_stack
from _phases import Window, describe_statuses, load_average, run_phase, table
from bench_webhook_load import TRIGGER, WEBHOOK_CONFIG, Generator, body_for, poweruser

TARGET_ADDED_P50_MS = 1.0
# The first phase on a fresh stack pays for its caches and connections; it is shown, not counted.
SETTLE_SECONDS = 5.0
PLAIN, KEYED, DUPLICATE = "plain", "keyed", "duplicate"
ORDER = (PLAIN, KEYED, DUPLICATE, KEYED, PLAIN)
PAIRS = ((1, 0), (3, 4))  # (keyed, plain) phases next to each other in ORDER


def create_webhook(client: httpx.Client, key: str) -> tuple[str, str]:
    created = poweruser(client, key, "create", {"webhookConfig": {"name": "dedup"}})
    webhook_id = str(created["webhook"]["id"])
    config = {**WEBHOOK_CONFIG, "name": "dedup"}
    poweruser(client, key, "update", {"webhookId": webhook_id, "webhookConfig": config})
    return webhook_id, str(created["apiKey"])


@dataclass
class Measured:
    settle: Window
    phases: list[Window]
    mismatched: int  # duplicates answering an executionId other than their first delivery's
    loop_delay_p99_ms: float
    generator_share: float


def _ids(result: dict[str, Any]) -> dict[int, str]:
    return {index: str(sample[3]) for index, sample in enumerate(result["samples"]) if sample and sample[3]}


def measure(args: argparse.Namespace, tmp: Path) -> Measured:
    env = {"SVC_WEBHOOK_RATE_LIMIT_PER_MINUTE": str(10**9), "SVC_WEBHOOK_RATE_LIMIT_PER_DAY": str(10**12)}
    with running_stack(tmp / "data", env) as stack, httpx.Client(base_url=stack.url, timeout=60) as client:
        company = stack.admin(
            "create-company", "--name", "Dedup Shop", "--admin-email", "admin@dedup.example"
        )
        webhook_id, api_key = create_webhook(client, company["poweruserKey"])
        path = f"{TRIGGER}?resourceId={webhook_id}"
        check = client.post(
            path, content=body_for(0), headers={"Authorization": api_key, "Content-Type": "application/json"}
        )
        if check.status_code != 202:
            raise RuntimeError(f"the trigger answered {check.status_code}: {check.text[:300]}")
        generator = Generator("raw", args.connections, tmp)
        common = {"rate": args.rate, "warmup": args.warmup, "seconds": args.seconds}
        progress(f"webhook {webhook_id}; settling: {SETTLE_SECONDS:g} s of plain triggers at {args.rate:g}/s")
        settle, _ = run_phase(
            generator, stack.url, path, api_key, name="settle (not counted)", rate=args.rate,
            warmup=0, seconds=SETTLE_SECONDS, metrics_url=stack.metrics_url,
        )  # fmt: skip
        phases: list[Window] = []
        runs: list[dict[str, Any]] = []
        keyed_prefix = ""
        mismatched = 0
        for number, kind in enumerate(ORDER, 1):
            prefix = None
            if kind == KEYED:
                prefix = keyed_prefix = uuid.uuid4().hex
            elif kind == DUPLICATE:
                prefix = keyed_prefix
            progress(f"phase {number}/{len(ORDER)}: {kind}, {args.seconds:g} s at {args.rate:g}/s")
            found, result = run_phase(
                generator, stack.url, path, api_key, name=f"{number} {kind}", key_prefix=prefix,
                expected=200 if kind == DUPLICATE else 202, metrics_url=stack.metrics_url, **common,
            )  # fmt: skip
            if kind == DUPLICATE:
                # Same rate and times as the keyed phase before: request i repeats that phase's request i.
                first = _ids(runs[-1])
                mismatched = sum(1 for i, seen in _ids(result).items() if first.get(i) != seen)
            phases.append(found)
            runs.append(result)
            progress(f"  p50/p95/p99 {found.latency} ms; unexpected: {describe_statuses(found.unexpected)}")
        if stack.process.poll() is not None:
            raise RuntimeError(f"svc up exited with {stack.process.returncode} during the run")
        progress("stopping svc up")
    return Measured(
        settle=settle,
        phases=phases,
        mismatched=mismatched,
        loop_delay_p99_ms=max(float(run["loopDelayP99Ms"]) for run in runs),
        generator_share=max(float(run["cpuSeconds"]) / float(run["wallSeconds"]) for run in runs),
    )


def _pooled(phases: list[Window], kind: str) -> Window:
    pooled = Window(f"{kind} (all)", 200 if kind == DUPLICATE else 202)
    for phase in phases:
        if phase.name.endswith(kind):
            pooled = pooled.merged(phase)
    return pooled


def _added(keyed: Window, plain: Window) -> str:
    if keyed.latency is None or plain.latency is None:
        return "-"
    return f"{keyed.latency.p50 - plain.latency.p50:+.2f}"


def report(measured: Measured, args: argparse.Namespace, load: tuple[float, float]) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {load[0]:.2f} before the run, "
        f"{load[1]:.2f} at its end (the run itself adds about 2)"
    )
    print(
        f"load: raw client in its own process, {args.connections} connections, open loop at {args.rate:g}/s; "
        f"phases of {args.seconds:g} s after {args.warmup:g} s of warm-up each; latency from the scheduled "
        f"send time; generator loop delay p99 at most {measured.loop_delay_p99_ms:.1f} ms, at most "
        f"{measured.generator_share:.0%} of a core"
    )
    print("database: SQLite (svc up's default)")
    print()
    plain, keyed, duplicate = (_pooled(measured.phases, kind) for kind in (PLAIN, KEYED, DUPLICATE))
    for line in table([measured.settle, *measured.phases, plain, keyed, duplicate]):
        print(line)
    print()
    misses: list[str] = []
    if plain.latency is None or keyed.latency is None:
        misses.append("fewer than two expected answers in a phase")
    else:
        added = keyed.latency.p50 - plain.latency.p50
        pairs = [_added(measured.phases[keyed_at], measured.phases[plain_at]) for keyed_at, plain_at in PAIRS]
        print(
            f"added p50 = keyed p50 - plain p50 = {keyed.latency.p50:.2f} - {plain.latency.p50:.2f} = "
            f"{added:+.2f} ms (per ABBA pair: {', '.join(pairs)} ms)"
        )
        if duplicate.latency is not None:
            print(f"duplicate p50 - plain p50 = {duplicate.latency.p50 - plain.latency.p50:+.2f} ms")
        if added > TARGET_ADDED_P50_MS:
            misses.append(f"added p50 {added:+.2f} ms > {TARGET_ADDED_P50_MS:g} ms")
    unexpected = sum(sum(phase.unexpected.values()) for phase in measured.phases)
    print(f"unexpected answers: {unexpected}; duplicates with another executionId: {measured.mismatched}")
    if unexpected:
        misses.append(f"{unexpected} unexpected answers")
    if measured.mismatched:
        misses.append(f"{measured.mismatched} duplicates answered another executionId")
    print(
        f"target: keyed p50 at most {TARGET_ADDED_P50_MS:g} ms above plain p50, every answer as expected: "
        + ("PASS" if not misses else "FAIL (" + "; ".join(misses) + ")")
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=float, default=200.0, help="triggers per second in every phase")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured length of each phase")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up of each phase, not counted")
    parser.add_argument("--connections", type=int, default=64, help="the generator's connection pool")
    args = parser.parse_args()
    if args.rate <= 0 or args.seconds <= 0 or args.warmup < 0:
        print("--rate and --seconds must be positive, --warmup not negative", file=sys.stderr)
        return 2
    load_before = load_average()
    progress(f"1-minute load average before the run: {load_before:.2f}")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-dedup-", ignore_cleanup_errors=True) as tmp:
            measured = measure(args, Path(tmp))
    except Exception:
        traceback.print_exc()
        return 1
    report(measured, args, (load_before, load_average()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
