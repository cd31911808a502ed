"""``svc up``: migrations, the embedded broker, topics, one worker and the ingress, stopped in order."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request
from types import FrameType

from schemas.settings import Settings
from sinks.db.migrate import upgrade
from sinks.iceberg.catalog import catalog_for
from sinks.kafka import ensure_topics
from svc import broker, children

log = logging.getLogger(__name__)


class _Stop:
    requested = False
    signal_name = ""

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        self.requested = True
        self.signal_name = signal.Signals(signum).name


def _wait_healthy(url: str, ingress: subprocess.Popen[bytes], stop: _Stop, timeout_seconds: float) -> bool:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline and not stop.requested:
        if ingress.poll() is not None:
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

    data_dir = settings.data_dir.resolve()
    logs = data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    upgrade(settings.resolved_database_url)
    # The Iceberg catalog's own tables are created once here, before the children race to create them.
    catalog_for(settings).engine.dispose()
    log.info("migrations applied", extra={"database": settings.resolved_database_url.split("@")[-1]})

    started: list[tuple[str, subprocess.Popen[bytes]]] = []
    try:
        bootstrap = settings.kafka_bootstrap
        if not bootstrap:
            port = settings.broker_port or broker.free_port()
            tansu = broker.start_tansu(port, logs / "broker.log")
            started.append(("broker", tansu))
            bootstrap = f"127.0.0.1:{port}"
            broker.wait_reachable(bootstrap, 30, tansu)
            log.info("embedded broker started", extra={"bootstrap": bootstrap, "pid": tansu.pid})
        resolved = settings.model_copy(update={"kafka_bootstrap": bootstrap, "data_dir": data_dir})
        created = asyncio.run(ensure_topics(resolved))
        log.info("topics ready", extra={"topics_created": created, "partitions": settings.topic_partitions})

        env = dict(os.environ, SVC_KAFKA_BOOTSTRAP=bootstrap, SVC_DATA_DIR=str(data_dir))
        command = [sys.executable, "-m", "svc"]
        worker = children.spawn([*command, "worker"], env=env, niceness=settings.worker_niceness)
        started.append(("worker", worker))
        ingress = children.spawn([*command, "ingress"], env=env)
        started.append(("ingress", ingress))

        url = f"http://{settings.host}:{settings.port}"
        if not _wait_healthy(url, ingress, stop, 60):
            if not stop.requested:
                log.error("the ingress did not become healthy; stopping")
                return 1
        else:
            print(f"svc is up at {url}  (data in {data_dir}; Ctrl-C stops)", flush=True)
        return _watch(started, stop)
    finally:
        _stop_all(started, settings.shutdown_timeout_seconds)


def _watch(started: list[tuple[str, subprocess.Popen[bytes]]], stop: _Stop) -> int:
    while not stop.requested:
        for name, process in started:
            if process.poll() is not None:
                log.error(
                    "child exited; stopping the stack", extra={"child": name, "status": process.returncode}
                )
                return 1
        time.sleep(0.2)
    log.info("stopping", extra={"signal": stop.signal_name})
    return 0


def _stop_all(started: list[tuple[str, subprocess.Popen[bytes]]], timeout_seconds: float) -> None:
    # Reverse start order: the ingress stops accepting, the worker drains and commits, the broker goes last.
    for name, process in reversed(started):
        status = children.stop(process, name, timeout_seconds)
        log.info("child stopped", extra={"child": name, "status": status})
