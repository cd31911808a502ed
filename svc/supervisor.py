"""``svc up``: migrations, the embedded broker, topics, the workers and the ingress processes, supervised.

A child that exits without being asked to (a crash, an OOM kill, a SIGKILL) is started again after an
exponential backoff (svc/restarts.py) while the others keep serving. An embedded broker started again after
a crash is empty (no topic, offset or consumer group survives it), so the workers are restarted after it
(SIGTERM, then SIGKILL past the shutdown timeout): their consumers join the new broker from scratch, where a
consumer that lost its group coordinator at the wrong moment could stay wedged without fetching, and the
reconcilers re-publish the pending work. An embedded broker grown too long is renewed without stopping
anything (sinks/embedded_broker/rotation.py, run by the watch's thread). SIGTERM or SIGINT stops everything in
order: the ingress processes first, then the workers (they drain and commit), then the broker; exit 0."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from types import FrameType

from aiokafka.errors import KafkaError

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from sinks.embedded_broker.supervision import BrokerSupervision
from sinks.embedded_broker.watch import BrokerWatch
from sinks.kafka_admin import ensure_topics
from sinks.objectstore import BucketUnavailable, ensure_buckets
from svc import children, database, shape
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
    # Asked to stop so that it starts again (``Supervisor.restart``): SIGKILL from this time on.
    kill_at: float | None = None


class Supervisor:
    def __init__(
        self, stop: _Stop, policy: RestartPolicy | None = None, restart_grace_seconds: float = 30.0
    ) -> None:
        self.stop = stop
        self.policy = policy or RestartPolicy()
        self.restart_grace_seconds = restart_grace_seconds
        self.children: list[Child] = []
        # The environment the workers start with: a broker started again after a crash is noted in it, so the
        # workers started after it publish again at once what was queued before (Settings.queued_grace_at).
        self.worker_env: dict[str, str] | None = None
        # The embedded broker's signal and renewals (sinks/embedded_broker/supervision.py); None with Kafka.
        self.embedded: BrokerSupervision | None = None

    def _broker_away(self, away: bool) -> None:
        if self.embedded is not None:
            self.embedded.broker_away(away)

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

    def restart(self, role: str) -> None:
        """Stop every running child of ``role`` gracefully so that it starts again at once (no backoff)."""
        deadline = time.monotonic() + self.restart_grace_seconds
        for child in self.of_role(role):
            if child.restart_at is None and child.kill_at is None and child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
                child.kill_at = deadline
                log.warning("restarting a child", extra={"child": child.name, "pid": child.process.pid})

    def _tend(self, child: Child) -> None:
        moment = time.monotonic()
        if child.kill_at is not None and child.restart_at is None:
            if child.process.poll() is None:
                if moment >= child.kill_at:
                    log.warning("child did not stop in time; killing it", extra={"child": child.name})
                    child.process.kill()
                return
            child.kill_at, child.restart_at = None, moment
            return
        if child.restart_at is None:
            status = child.process.poll()
            if status is None:
                return
            ran = moment - child.started
            if child.role == "broker":
                self._broker_away(True)
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
            # Present again before the new broker's start is noted: a delivery the ingress left to the
            # workers was received before that moment, so their reconcilers hand it over at once.
            self._broker_away(False)
            if self.worker_env is not None:
                self.worker_env["SVC_BROKER_STARTED_AT"] = datetime.now(UTC).isoformat()
            self.restart("worker")

    def stop_all(self, timeout_seconds: float) -> None:
        # The ingress stops accepting, the workers drain and commit, the broker goes last; a role's processes
        # stop together.
        for role in STOP_ORDER:
            group = {child.name: child.process for child in self.of_role(role)}
            for name, status in children.stop_together(group, timeout_seconds).items():
                log.info("child stopped", extra={"child": name, "status": status})


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


def run_up(settings: Settings) -> int:
    stop = _Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    counts = shape.process_counts(settings, os.cpu_count())
    refusal = shape.sqlite_refusal(settings, counts) or shape.metrics_port_clash(settings, counts)
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
        listener = children.listen(settings.host, settings.port)
    except OSError as exc:
        print(f"svc up: cannot listen on {settings.host}:{settings.port}: {exc.strerror}", file=sys.stderr)
        return 1
    port = int(listener.getsockname()[1])
    broker_port = settings.broker_port or broker.free_port()
    bootstrap = settings.kafka_bootstrap or f"127.0.0.1:{broker_port}"
    for line in shape.shape_lines(settings, bootstrap=bootstrap, counts=counts, port=port):
        print(line, flush=True)
    resolved = settings.model_copy(update={"kafka_bootstrap": bootstrap, "data_dir": data_dir, "port": port})
    supervisor = Supervisor(stop, restart_grace_seconds=settings.shutdown_timeout_seconds)
    watch: BrokerWatch | None = None
    try:
        if settings.embedded_broker:
            embedded = supervisor.embedded = BrokerSupervision(data_dir)
            launch_broker = broker.launcher(
                resolved,
                broker_port,
                logs / "broker.log",
                spawn=children.spawn,
                generation=embedded.produce_generation,
            )
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
        if supervisor.embedded is not None:
            (tansu,) = supervisor.of_role("broker")
            watch = supervisor.embedded.renewal_watch(resolved, lambda: tansu.process)
            watch.start()
        url = f"http://{settings.host}:{port}"
        if not _wait_healthy(url, supervisor.of_role("ingress"), stop, settings.startup_timeout_seconds):
            if not stop.requested:
                log.error("the ingress did not become healthy; stopping")
                return 1
        else:
            print(f"svc is up at {url}  (data in {data_dir}; Ctrl-C stops)", flush=True)
        return supervisor.watch()
    finally:
        if watch is not None:
            watch.stop()
        # Our copy of the port goes first: once the ingress processes close theirs, connections are refused.
        listener.close()
        supervisor.stop_all(settings.shutdown_timeout_seconds)


def _spawn_worker(
    command: list[str], env: dict[str, str], port: int, niceness: int
) -> subprocess.Popen[bytes]:
    """``env`` is read at each start, not copied once: a broker's restart adds its start time to it."""
    return children.spawn(command, env=dict(env, SVC_WORKER_METRICS_PORT=str(port)), niceness=niceness)


def _start_roles(supervisor: Supervisor, resolved: Settings, counts: shape.ProcessCounts, fd: int) -> None:
    env = dict(
        os.environ,
        SVC_KAFKA_BOOTSTRAP=str(resolved.kafka_bootstrap),
        SVC_DATA_DIR=str(resolved.data_dir),
        SVC_PORT=str(resolved.port),
        SVC_SUPERVISOR_PID=str(os.getpid()),
    )
    if supervisor.embedded is not None:
        env["SVC_EMBEDDED_BROKER_SIGNAL_FILE"] = str(supervisor.embedded.signal_path)
    supervisor.worker_env = env
    command = [sys.executable, "-m", "svc"]
    worker_ports = shape.worker_metrics_ports(resolved, counts.workers)
    for index in range(1, counts.workers + 1):
        name = f"worker-{index}"
        worker = [*command, "worker", "--name", name]
        port = worker_ports[index - 1] if worker_ports else 0
        supervisor.start(name, "worker", partial(_spawn_worker, worker, env, port, resolved.worker_niceness))
    metrics_ports = shape.metrics_ports(resolved, counts.ingress)
    for index in range(1, counts.ingress + 1):
        name = f"ingress-{index}"
        ingress = [*command, "ingress", "--name", name, "--fd", str(fd)]
        own = dict(env, SVC_METRICS_PORT=str(metrics_ports[index - 1] if metrics_ports else 0))
        supervisor.start(name, "ingress", partial(children.spawn, ingress, env=own, pass_fds=(fd,)))
