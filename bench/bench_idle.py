"""Idle CPU of every process of ``svc up`` (issue 21: each under 2% of a core, no busy polling).

The real stack runs as ``svc up`` (SQLite, embedded broker) with nothing to do: no company, no webhook, no
schedule. Once it has settled (``--settle``; the consumers' fetch wait lengthens after ten quiet seconds,
sinks/embedded_broker/fetch_wait.py), each process's CPU time (user + system, from /proc) is read over
``--seconds`` and printed as a share of one core, with PASS or FAIL against the target. The stack is measured
on its defaults and once more with the settings the test suite gives its stacks, which runs dozens of idle
workers. ``--threads`` also splits each process's CPU by thread (the worker's event loop, its group
committers). The machine's load average is printed with each measurement: on a shared machine a run under load
reads high, so repeat it then. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from _common import Stack, add_set_argument, cpu_seconds, progress, running_stack, stack_roles, stack_settings

TARGET_SHARE = 0.02
# The settings tests/fixtures give the stacks they start (short fetch wait, quick reconcilers).
TEST_SETTINGS = {"SVC_KAFKA_FETCH_MAX_WAIT_MS": "100", "SVC_RECONCILE_INTERVAL_SECONDS": "1"}
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Measurement:
    label: str
    shares: dict[str, float]  # process name -> share of one core
    threads: dict[str, dict[str, float]]  # process name -> thread name -> share of one core
    load_before: float
    load_after: float


def stack_processes(stack: Stack) -> dict[str, int]:
    """``svc up`` itself and its children by role (``_common.stack_roles``)."""
    return {"svc up": stack.process.pid} | stack_roles(stack.process.pid)


def thread_seconds(pid: int) -> dict[str, float]:
    """CPU seconds of each thread of ``pid`` by thread name (threads of one name added up)."""
    found: dict[str, float] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    return found


def measure(label: str, settings: dict[str, str], args: argparse.Namespace, tmp: Path) -> Measurement:
    progress(f"[{label}] starting svc up" + (f" with {settings}" if settings else " on its defaults"))
    with running_stack(tmp / label, settings) as stack:
        progress(f"[{label}] svc is up at {stack.url}; settling for {args.settle:g} s")
        time.sleep(args.settle)
        processes = stack_processes(stack)
        load_before = os.getloadavg()[0]
        before = {name: cpu_seconds(pid) for name, pid in processes.items()}
        threads_before = (
            {name: thread_seconds(pid) for name, pid in processes.items()} if args.threads else {}
        )
        began = time.monotonic()
        time.sleep(args.seconds)
        elapsed = time.monotonic() - began
        after = {name: cpu_seconds(pid) for name, pid in processes.items()}
        threads_after = {name: thread_seconds(pid) for name, pid in processes.items()} if args.threads else {}
        load_after = os.getloadavg()[0]
        gone = [name for name, pid in processes.items() if not Path(f"/proc/{pid}").exists()]
        if gone:
            raise RuntimeError(f"processes exited during the measurement: {gone}; {stack.stderr_tail()}")
        progress(f"[{label}] stopping svc up")
    shares = {name: (after[name] - before[name]) / elapsed for name in processes}
    threads = {
        name: {
            thread: (seconds - threads_before[name].get(thread, 0.0)) / elapsed
            for thread, seconds in sorted(threads_after[name].items(), key=lambda item: -item[1])
        }
        for name in threads_after
    }
    return Measurement(label, shares, threads, load_before, load_after)


def report(measurement: Measurement, args: argparse.Namespace) -> bool:
    print(
        f"\n{measurement.label}: idle CPU over {args.seconds:g} s after {args.settle:g} s settling (load "
        f"average {measurement.load_before:.2f} -> {measurement.load_after:.2f} on {os.cpu_count()} cores)"
    )
    print(f"  {'process':<12} {'% of a core':>12}  target < {TARGET_SHARE:.0%}")
    passed = True
    for name, share in measurement.shares.items():
        verdict = "PASS" if share < TARGET_SHARE else "FAIL"
        passed = passed and share < TARGET_SHARE
        print(f"  {name:<12} {share:>11.2%}  {verdict}")
        for thread, thread_share in measurement.threads.get(name, {}).items():
            if thread_share >= 0.0005:
                print(f"    {thread:<20} {thread_share:>7.2%}")
    print(f"  total        {sum(measurement.shares.values()):>11.2%}  {'PASS' if passed else 'FAIL'}")
    return passed


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds the CPU is measured over")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds waited after svc is up")
    parser.add_argument(
        "--runs",
        choices=("both", "defaults", "tests"),
        default="both",
        help="the stack on its defaults, with the tests' settings, or both (one after the other)",
    )
    add_set_argument(parser)
    parser.add_argument("--threads", action="store_true", help="also split each process's CPU by thread")
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    extra = stack_settings(args.set)
    runs = {"defaults": dict(extra), "tests": {**TEST_SETTINGS, **extra}}
    if args.runs != "both":
        runs = {args.runs: runs[args.runs]}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-idle-", ignore_cleanup_errors=True) as tmp:
            measurements = [measure(label, settings, args, Path(tmp)) for label, settings in runs.items()]
    except Exception:
        traceback.print_exc()
        return 1
    verdicts = [report(measurement, args) for measurement in measurements]
    print(
        f"\n{'PASS' if all(verdicts) else 'FAIL'}: every process under {TARGET_SHARE:.0%} of a core when idle"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
