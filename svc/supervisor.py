"""``svc up``: migrations, the embedded broker, topics, the workers and the ingress processes, supervised.

A child that exits without being asked to (a crash, an OOM kill, a SIGKILL) is started again after an
exponential backoff (svc/restarts.py) while the others keep serving. A restarted embedded broker starts
empty (no topic, offset or consumer group survives it), so the workers are restarted after it (SIGTERM, then
SIGKILL past the shutdown timeout): their consumers join the new broker from scratch, where a consumer that
lost its group coordinator at the wrong moment could stay wedged without fetching, and the reconcilers
re-publish the pending work. SIGTERM or SIGINT stops everything in order: the ingress processes first, then
the workers (they drain and commit), then the broker; exit 0."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import FrameType

from aiokafka.errors import KafkaError

from schemas.settings import Settings
from sinks.kafka import ensure_topics
from sinks.objectstore import BucketUnavailable, ensure_buckets
from svc import broker, children, database, shape
from svc.restarts import RestartPolicy, exit_description

log = logging.getLogger(__name__)
STOP_ORDER = ("ingress", "worker", "broker")
BROKER_START_SECONDS = 30.0
BROKER_RESTART_SECONDS = 10.0
_POLL_SECONDS = 0.1


class _Stop:
    requested = False
    signal_name = ""

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        self.requested = True
        self.signal_name = signal.Signals(signum).name


@dataclass
class Child:
    name: str
    role: str
    launch: Callable[[], subprocess.Popen[bytes]]
    process: subprocess.Popen[bytes]
    started: float = field(default_factory=time.monotonic)
    attempt: int = 0
    restart_at: float | None = None
    # Asked to stop so that it starts again (``Supervisor.recycle``): SIGKILL from this time on.
    recycle_kill_at: float | None = None


class Supervisor:
    def __init__(
        self, stop: _Stop, policy: RestartPolicy | None = None, recycle_grace_seconds: float = 30.0
    ) -> None:
        self.stop = stop
        self.policy = policy or RestartPolicy()
        self.recycle_grace_seconds = recycle_grace_seconds
        self.children: list[Child] = []

    def start(
        self,
        name: str,
        role: str,
        launch: Callable[[], subprocess.Popen[bytes]],
        first: Callable[[], subprocess.Popen[bytes]] | None = None,
    ) -> Child:
        """Start a child with ``first`` (or ``launch``); restarts use ``launch``."""
        child = Child(name, role, launch, (first or launch)())
        self.children.append(child)
        log.info("child started", extra={"child": name, "pid": child.process.pid})
        return child

    def of_role(self, role: str) -> list[Child]:
        return [child for child in self.children if child.role == role]

    def watch(self) -> int:
        while not self.stop.requested:
            for child in self.children:
                self._tend(child)
                if self.stop.requested:
                    break
            time.sleep(_POLL_SECONDS)
        log.info("stopping", extra={"signal": self.stop.signal_name})
        return 0

    def recycle(self, role: str) -> None:
        """Stop every running child of ``role`` gracefully so that it starts again at once (no backoff)."""
        deadline = time.monotonic() + self.recycle_grace_seconds
        for child in self.of_role(role):
            if child.restart_at is None and child.recycle_kill_at is None and child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
                child.recycle_kill_at = deadline
                log.warning("restarting a child", extra={"child": child.name, "pid": child.process.pid})

    def _tend(self, child: Child) -> None:
        moment = time.monotonic()
        if child.recycle_kill_at is not None and child.restart_at is None:
            if child.process.poll() is None:
                if moment >= child.recycle_kill_at:
                    log.warning("child did not stop in time; killing it", extra={"child": child.name})
                    child.process.kill()
                return
            child.recycle_kill_at, child.restart_at = None, moment
            return
        if child.restart_at is None:
            status = child.process.poll()
            if status is None:
                return
            ran = moment - child.started
            child.attempt = self.policy.next_attempt(child.attempt, ran)
            delay = self.policy.delay(child.attempt)
            child.restart_at = moment + delay
            log.warning(
                "child exited; restarting it",
                extra={
                    "child": child.name,
                    "pid": child.process.pid,
                    **exit_description(status),
                    "attempt": child.attempt,
                    "ran_seconds": round(ran, 1),
                    "restart_in_seconds": delay,
                },
            )
            return
        if moment < child.restart_at:
            return
        child.started = moment
        try:
            child.process = child.launch()
        except Exception as exc:
            # Whatever stopped this start (a busy port, a broker that never answered), the supervisor keeps
            # the rest serving and tries again later.
            child.attempt += 1
            delay = self.policy.delay(child.attempt)
            child.restart_at = time.monotonic() + delay
            log.error(
                "child did not start; trying again",
                extra={"child": child.name, "attempt": child.attempt, "reason": str(exc)[:200]},
            )
            return
        child.restart_at = None
        log.warning(
            "child restarted", extra={"child": child.name, "pid": child.process.pid, "attempt": child.attempt}
        )
        if child.role == "broker":
            self.recycle("worker")

    def stop_all(self, timeout_seconds: float) -> None:
        # The ingress stops accepting, the workers drain and commit, the broker goes last; a role's processes
        # stop together.
        for role in STOP_ORDER:
            group = {child.name: child.process for child in self.of_role(role)}
            for name, status in children.stop_together(group, timeout_seconds).items():
                log.info("child stopped", extra={"child": name, "status": status})


def _listen(host: str, port: int) -> socket.socket:
    """The ingress port, bound once here and inherited by every ingress process (``svc ingress --fd``).

    One socket passed by descriptor rather than SO_REUSEPORT sockets bound by each process: the port stays
    bound while an ingress restarts, so connections made meanwhile wait in the backlog instead of being
    refused, and a connection is never stranded in the queue of a process that died (with SO_REUSEPORT each
    process has its own queue); no other program of the same user can join the port and take a share of its
    connections; a busy port is one clear error here, not children failing in a loop; and port 0 gives one
    free port that all processes share."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(2048)
    except OSError:
        listener.close()
        raise
    return listener


def _wait_healthy(url: str, ingresses: Sequence[Child], stop: _Stop, timeout_seconds: float) -> bool:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline and not stop.requested:
        if any(child.process.poll() is not None for child in ingresses):
            return False
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as answer:  # noqa: S310 - our own loopback URL
                if answer.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def _broker_launcher(
    resolved: Settings, port: int, log_path: Path
) -> Callable[[float], subprocess.Popen[bytes]]:
    def launch(timeout_seconds: float) -> subprocess.Popen[bytes]:
        # The same port every time: the children's bootstrap address stays right across a restart.
        tansu = broker.start_tansu(port, log_path)
        try:
            created = asyncio.run(broker.create_topics_when_up(resolved, port, tansu, timeout_seconds))
        except BaseException:
            tansu.kill()
            tansu.wait()
            raise
        log.info("embedded broker ready", extra={"pid": tansu.pid, "topics_created": len(created)})
        try:
            mismatched = asyncio.run(broker.partition_mismatches(resolved))
        except (KafkaError, OSError):
            mismatched = {}  # only a report: the broker serves either way
        if mismatched:
            # A reconnecting client asked for a topic first and the broker made it with its own default.
            log.warning(
                "topics have another partition count than configured until svc up restarts",
                extra={"topics": {topic: found for topic, (found, _wanted) in mismatched.items()}},
            )
        return tansu

    return launch


def run_up(settings: Settings) -> int:
    stop = _Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    counts = shape.process_counts(settings, os.cpu_count())
    refusal = shape.sqlite_refusal(settings, counts)
    if refusal is not None:
        print(f"svc up: {refusal}", file=sys.stderr, flush=True)
        return 2
    data_dir = settings.data_dir.resolve()
    logs = data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    problem = database.prepare(settings)
    if problem is not None:
        print(f"svc up: {problem}", file=sys.stderr, flush=True)
        return 1
    log.info(
        "migrations applied", extra={"database": shape.database_location(settings.resolved_database_url)}
    )
    try:
        made = ensure_buckets(settings)
    except BucketUnavailable as exc:
        print(f"svc up: {exc}", file=sys.stderr, flush=True)
        return 1
    if made:
        log.info("buckets created", extra={"buckets": made})
    try:
        listener = _listen(settings.host, settings.port)
    except OSError as exc:
        print(f"svc up: cannot listen on {settings.host}:{settings.port}: {exc.strerror}", file=sys.stderr)
        return 1
    port = int(listener.getsockname()[1])
    broker_port = settings.broker_port or broker.free_port()
    bootstrap = settings.kafka_bootstrap or f"127.0.0.1:{broker_port}"
    for line in shape.shape_lines(settings, bootstrap=bootstrap, counts=counts, port=port):
        print(line, flush=True)
    resolved = settings.model_copy(update={"kafka_bootstrap": bootstrap, "data_dir": data_dir, "port": port})
    supervisor = Supervisor(stop, recycle_grace_seconds=settings.shutdown_timeout_seconds)
    try:
        if settings.embedded_broker:
            launch_broker = _broker_launcher(resolved, broker_port, logs / "broker.log")
            try:
                supervisor.start(
                    "broker",
                    "broker",
                    partial(launch_broker, BROKER_RESTART_SECONDS),
                    first=partial(launch_broker, BROKER_START_SECONDS),
                )
            except (OSError, RuntimeError, KafkaError) as exc:
                print(f"svc up: the embedded broker did not start on {bootstrap}: {exc}", file=sys.stderr)
                return 1
        else:
            try:
                created = asyncio.run(ensure_topics(resolved))
            except (OSError, KafkaError) as exc:
                print(f"svc up: the broker at {bootstrap} did not answer: {exc}", file=sys.stderr)
                return 1
            log.info("topics ready", extra={"topics_created": created})
        _start_roles(supervisor, resolved, counts, listener.fileno())
        url = f"http://{settings.host}:{port}"
        if not _wait_healthy(url, supervisor.of_role("ingress"), stop, settings.startup_timeout_seconds):
            if not stop.requested:
                log.error("the ingress did not become healthy; stopping")
                return 1
        else:
            print(f"svc is up at {url}  (data in {data_dir}; Ctrl-C stops)", flush=True)
        return supervisor.watch()
    finally:
        # Our copy of the port goes first: once the ingress processes close theirs, connections are refused.
        listener.close()
        supervisor.stop_all(settings.shutdown_timeout_seconds)


def _start_roles(supervisor: Supervisor, resolved: Settings, counts: shape.ProcessCounts, fd: int) -> None:
    env = dict(
        os.environ,
        SVC_KAFKA_BOOTSTRAP=str(resolved.kafka_bootstrap),
        SVC_DATA_DIR=str(resolved.data_dir),
        SVC_PORT=str(resolved.port),
        SVC_SUPERVISOR_PID=str(os.getpid()),
    )
    command = [sys.executable, "-m", "svc"]
    for index in range(1, counts.workers + 1):
        name = f"worker-{index}"
        worker = [*command, "worker", "--name", name]
        supervisor.start(
            name, "worker", partial(children.spawn, worker, env=env, niceness=resolved.worker_niceness)
        )
    metrics_ports = shape.metrics_ports(resolved, counts.ingress)
    for index in range(1, counts.ingress + 1):
        name = f"ingress-{index}"
        ingress = [*command, "ingress", "--name", name, "--fd", str(fd)]
        own = dict(env, SVC_METRICS_PORT=str(metrics_ports[index - 1] if metrics_ports else 0))
        supervisor.start(name, "ingress", partial(children.spawn, ingress, env=own, pass_fds=(fd,)))
