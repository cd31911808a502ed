"""``svc up`` as a user runs it: a subprocess on free ports, driven over HTTP and through the admin CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from svc import broker
from tests.fixtures.processes import admin, alive, descendants, svc_env

pytestmark = pytest.mark.e2e


class Stack:
    def __init__(self, data_dir: Path) -> None:
        self.port = broker.free_port()
        self.env = svc_env(
            data_dir,
            SVC_PORT=str(self.port),
            SVC_BROKER_PORT=str(broker.free_port()),
            SVC_TOPIC_PARTITIONS="2",
            SVC_SHUTDOWN_TIMEOUT_SECONDS="15",
        )
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        # svc up prints this line only once /healthz answers 200; it gives up after 60 s.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "svc", "up"],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        # The lines before it describe the shape (database, broker, ...; tests/e2e/test_supervision.py).
        line = next((line for line in self.process.stdout if line.startswith("svc is up")), "")
        assert line.startswith(f"svc is up at {self.url}"), line

    def children(self) -> set[int]:
        assert self.process is not None
        return descendants(self.process.pid)

    def signal(self, signum: int) -> int:
        assert self.process is not None
        self.process.send_signal(signum)
        return self.process.wait(timeout=60)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    running = Stack(tmp_path / "data")
    yield running
    running.kill()


def _wait_gone(pids: set[int], timeout: float = 30) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = {pid for pid in pids if alive(pid)}
        if not left:
            return left
        time.sleep(0.1)
    return {pid for pid in pids if alive(pid)}


def test_up_serves_survives_a_restart_and_stops_cleanly(stack: Stack) -> None:
    stack.start()
    assert httpx.get(f"{stack.url}/healthz").status_code == 200
    assert httpx.get(f"{stack.url}/readyz").json()["checks"] == {"database": "ok", "broker": "ok"}
    children = stack.children()
    assert len(children) >= 3, "broker, worker and ingress run as children"

    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=stack.env)
    key = {"Authorization": company["clientApiKey"]}
    me = httpx.post(f"{stack.url}/clients/whoami", headers=key, json={})
    assert me.status_code == 200 and me.json()["companyId"] == company["companyId"]
    wrong = httpx.post(f"{stack.url}/clients/whoami", headers={"Authorization": "svck_" + "x" * 43}, json={})
    assert wrong.status_code == 401 and wrong.json()["errors"] == ["Invalid API key"]
    assert wrong.headers["X-Request-Id"]

    assert stack.signal(signal.SIGTERM) == 0
    assert _wait_gone(children) == set(), "SIGTERM left child processes behind"

    stack.start()
    again = httpx.post(f"{stack.url}/clients/whoami", headers=key, json={})
    assert again.status_code == 200 and again.json()["userId"] == company["userId"]
    power = {"Authorization": company["poweruserKey"]}
    assert httpx.post(f"{stack.url}/svc_poweruser/whoami", headers=power, json={}).status_code == 200
    children = stack.children()
    assert stack.signal(signal.SIGINT) == 0
    assert _wait_gone(children) == set(), "Ctrl-C left child processes behind"


def test_a_killed_supervisor_leaves_no_orphans(stack: Stack) -> None:
    stack.start()
    children = stack.children()
    assert children
    stack.kill()
    assert _wait_gone(children) == set(), "SIGKILL of svc up left orphans"


def _workers(pids: set[int]) -> set[int]:
    found = set()
    for pid in pids:
        try:
            if b"svc\x00worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(pid)
        except OSError:
            continue
    return found


def test_a_dead_child_is_started_again(stack: Stack) -> None:
    # svc up supervises: a killed worker is replaced, the stack keeps running (more in test_supervision.py).
    stack.start()
    children = stack.children()
    worker = min(_workers(children))
    os.kill(worker, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while not _workers(stack.children() - children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers(stack.children() - children), "the killed worker was not started again"
    assert stack.process is not None and stack.process.poll() is None
    everyone = stack.children()
    assert stack.signal(signal.SIGTERM) == 0
    assert _wait_gone(everyone) == set()
