"""``svc up`` as a supervisor: a child killed with SIGKILL is started again while the rest keeps serving, and
every delivery the stack accepted (202) still reaches a final status; refusals at start are one clear line."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from schemas.admin import ResourceSpec
from schemas.envelopes import Envelope
from schemas.records import GENERATION_MARKER_TYPE
from sinks.db import resources, tenancy
from sinks.db.engine import make_engine, make_sessions
from sinks.embedded_broker import process as broker
from tests.fixtures import postgres
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.processes import alive, descendants, run_svc, svc_env
from tests.fixtures.up import Up, free_port_run, poll

pytestmark = pytest.mark.e2e

TRIGGER = "/clients/custom-webhooks"
HOOKS = "/svc_poweruser/custom-webhooks"
# Short sweeps, so work a dead child or an emptied broker dropped is found again within seconds.
FAST_RECOVERY = {
    "SVC_RECONCILE_INTERVAL_SECONDS": "1",
    "SVC_QUEUED_GRACE_SECONDS": "3",
    "SVC_PROCESSING_GRACE_SECONDS": "1",
}
# Killed in this order on one stack under load.
VICTIMS = ("worker", "broker", "ingress")


@pytest.fixture
def up(tmp_path: Path) -> Iterator[Up]:
    running = Up(tmp_path / "data", **FAST_RECOVERY)
    yield running
    running.kill()


@dataclass
class Sender:
    """Triggers the webhook every 20 ms until stopped; remembers what was accepted and what was not."""

    url: str
    webhook_id: str
    key: str
    # A new connection for every request, so the kernel hands them to every ingress process.
    fresh_connections: bool = False
    accepted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    accepted_at: list[float] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        # A long timeout: while the only ingress restarts, a request waits in the port's backlog.
        headers = {"Authorization": self.key}
        if self.fresh_connections:
            headers["Connection"] = "close"
        with httpx.Client(base_url=self.url, timeout=30) as client:
            n = 0
            while not self.done.is_set():
                n += 1
                try:
                    answer = client.post(
                        TRIGGER,
                        params={"resourceId": self.webhook_id},
                        headers=headers,
                        json={"n": n},
                    )
                except httpx.HTTPError as exc:
                    self.refused.append(type(exc).__name__)
                    time.sleep(0.05)
                    continue
                if answer.status_code == 202:
                    self.accepted.append(answer.json()["executionId"])
                    self.accepted_at.append(time.monotonic())
                else:
                    self.refused.append(str(answer.status_code))
                time.sleep(0.02)

    def accepted_since(self, moment: float) -> int:
        return sum(1 for at in list(self.accepted_at) if at > moment)


def _webhook(up: Up, handler: RecordingHandler) -> tuple[str, str, str]:
    """A company, a TOOL calling the recording handler, a webhook using it: (id, key, poweruser key). The
    company and the tool are written to svc up's own database from here (what `svc admin` does, without
    two more interpreters starting on a busy machine); the webhook is made over HTTP."""
    database_url = up.env.get("SVC_DATABASE_URL") or f"sqlite:///{up.data_dir / 'svc.db'}"
    engine = make_engine(database_url)
    try:
        with make_sessions(engine).begin() as session:
            company = tenancy.create_company(session, "Acme", "boss@acme.test")
            tool = resources.create_resource(
                session, company.company_id, ResourceSpec(type="TOOL", name="recorder", endpoint=handler.url)
            )
    finally:
        engine.dispose()
    config = {
        "name": "orders",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
        "executionSettings": {"timeoutSeconds": 2, "maxRetries": 5, "retryDelaySeconds": 0},
    }
    power = company.poweruser_key
    made = httpx.post(
        f"{up.url}{HOOKS}/create",
        headers={"Authorization": power},
        json={"webhookConfig": config},
        timeout=30,
    )
    assert made.status_code == 200, made.text
    return made.json()["webhook"]["id"], made.json()["apiKey"], power


def _entries(up: Up, power: str, webhook_id: str, status: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    page = 0
    while True:
        answer = httpx.post(
            f"{up.url}{HOOKS}/get-execution-history",
            headers={"Authorization": power},
            json={"webhookId": webhook_id, "status": status, "size": 100, "page": page},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        chunk = answer.json()["history"]
        entries += chunk
        if len(chunk) < 100:
            return entries
        page += 1


def _pending(up: Up, power: str, webhook_id: str) -> int:
    total = 0
    for status in ("QUEUED", "PROCESSING"):
        answer = httpx.post(
            f"{up.url}{HOOKS}/get-execution-history",
            headers={"Authorization": power},
            json={"webhookId": webhook_id, "status": status, "size": 1},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        total += int(answer.json()["totalElements"])
    return total


def _assert_every_accepted_delivery_ended(
    up: Up, power: str, webhook_id: str, sender: Sender, label: str
) -> None:
    _drain(lambda: _pending(up, power, webhook_id), 45, "deliveries are still QUEUED or PROCESSING")
    succeeded = {entry["executionId"] for entry in _entries(up, power, webhook_id, "SUCCESS")}
    failed = {entry["executionId"] for entry in _entries(up, power, webhook_id, "FAILED")} - succeeded
    accepted = set(sender.accepted)
    print(
        f"{label}: accepted {len(accepted)}, succeeded {len(accepted & succeeded)}, "
        f"failed {len(accepted & failed)}, not accepted {len(sender.refused)}"
    )
    assert accepted, "nothing was accepted"
    assert len(accepted) == len(accepted & succeeded) + len(accepted & failed)


def _drain(pending: Callable[[], int], stall: float, what: str) -> None:
    """Waits until ``pending()`` is 0, for as long as it keeps falling: the backlog a test builds depends on
    how fast a busy machine ran it, so only a stall of ``stall`` seconds fails."""
    least = pending()
    deadline = time.monotonic() + stall
    while least > 0:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: {least} left, none finished within {stall:.0f} s")
        time.sleep(0.2)
        now = pending()
        if now < least:
            least, deadline = now, time.monotonic() + stall


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _backlog(sender: Sender, handler: RecordingHandler) -> int:
    """Deliveries accepted that the handler has not seen yet (about: a retried call counts twice)."""
    return len(sender.accepted) - len(handler.calls)


def _kill_and_recover(up: Up, handler: RecordingHandler, sender: Sender, victim: str) -> int:
    """SIGKILL the oldest child of role ``victim`` under load; wait until svc up has started it again and the
    stack accepts and handles deliveries again. Returns the killed pid."""
    poll(lambda: len(handler.calls) >= 20, 30, "the handler was not called")
    running = up.pids(victim)
    old = min(running)
    os.kill(old, signal.SIGKILL)
    killed_at = time.monotonic()
    poll(lambda: len(up.pids(victim) - {old}) == len(running), 30, f"the {victim} was not started again")
    # A restarted ingress imports its stack again: on PostgreSQL beside a full suite that took over 30 s.
    poll(lambda: _healthy(up.url), 60, f"/healthz did not answer again after the {victim} was killed")
    poll(lambda: sender.accepted_since(killed_at) >= 20, 30, f"triggers were not accepted after the {victim}")
    calls = len(handler.calls)
    # A restarted worker rejoins the group and the broker rebalances: slow on a machine kept busy.
    poll(lambda: len(handler.calls) > calls, 90, f"deliveries were not handled again after the {victim}")
    return old


def test_killed_children_are_restarted_and_every_accepted_delivery_ends(
    up: Up, handler: RecordingHandler
) -> None:
    """One stack under load loses its worker, then its broker, then its ingress (SIGKILL each, in turn), and
    at last svc up itself: each child comes back, and every delivery accepted meanwhile reaches an end."""
    # A few handler slots, so slow calls keep a backlog in the broker when it dies (below).
    up.env["SVC_WORKER_CONCURRENCY"] = "4"
    up.start()
    assert [line.split(":", 1)[0] for line in up.shape] == [
        "database",
        "broker",
        "warehouse",
        "object store",
        "ingress",
        "workers",
        "metrics",
    ]
    webhook_id, key, power = _webhook(up, handler)
    sender = Sender(up.url, webhook_id, key)
    thread = threading.Thread(target=sender.run, daemon=True)
    thread.start()
    try:
        killed: dict[str, int] = {}
        workers_before_broker: set[int] = set()
        for victim in VICTIMS:
            # Slow calls while the broker dies: the records it held are gone, and only the reconciler's
            # re-publishing from the database can finish those deliveries.
            handler.delay = 0.2 if victim == "broker" else 0.0
            if victim == "broker":
                poll(
                    lambda: _backlog(sender, handler) >= 30, 30, "no backlog built up before the broker died"
                )
                workers_before_broker = up.pids("worker")
            killed[victim] = _kill_and_recover(up, handler, sender, victim)
        handler.delay = 0.0
    finally:
        sender.done.set()
        thread.join(timeout=60)
    assert up.process is not None and up.process.poll() is None, "svc up itself must keep running"

    _assert_every_accepted_delivery_ended(up, power, webhook_id, sender, " then ".join(VICTIMS) + " killed")

    logs = up.logs()
    restarts = [entry for entry in logs if entry.get("msg") == "child exited; restarting it"]
    for victim, old in killed.items():
        (name,) = {e["child"] for e in logs if e.get("msg") == "child started" and e.get("pid") == old}
        assert any(
            entry["child"] == name and entry.get("signal") == "SIGKILL" and entry["attempt"] == 1
            for entry in restarts
        ), (victim, restarts)
    # The embedded broker came back empty: svc up restarted the workers after it (asked, not killed).
    assert workers_before_broker and not workers_before_broker & up.pids("worker")
    restarted = {e["pid"] for e in logs if e.get("msg") == "restarting a child" and e.get("pid")}
    assert workers_before_broker <= restarted, (workers_before_broker, restarted)
    # svc up itself killed outright: its children must not outlive it. (test_stack stops it with SIGTERM.)
    everyone = descendants(up.process.pid)
    up.kill()
    poll(lambda: not any(alive(pid) for pid in everyone), 30, "SIGKILL of svc up left orphans")


def _scraped(port: int, metric: str = "svc_http_requests_total") -> bool:
    try:
        answer = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
    except httpx.HTTPError:
        return False
    return answer.status_code == 200 and metric in answer.text


def test_several_processes_on_postgresql_share_the_port_and_the_consumer_group(
    tmp_path: Path, handler: RecordingHandler
) -> None:
    up = Up(
        tmp_path / "data",
        SVC_DATABASE_URL=postgres.new_database_url(),
        SVC_INGRESS_PROCESSES="2",
        SVC_WORKER_PROCESSES="2",
        # Two ingress ports, then two workers'.
        SVC_METRICS_PORT=str(metrics_port := free_port_run(4)),
        SVC_WORKER_METRICS_PORT=str(metrics_port + 2),
        SVC_ACCESS_LOG="all",  # which ingress process served each request: read from the access log
        **FAST_RECOVERY,
    )
    try:
        up.start()
        shape = dict(line.split(":", 1) for line in up.shape)
        assert shape["database"].strip().startswith("postgresql at ")
        assert shape["ingress"].strip().startswith(f"2 processes sharing 127.0.0.1:{up.port}")
        assert shape["workers"].strip().startswith("2 processes in consumer group svc-worker")
        assert len(up.pids("ingress")) == 2 and len(up.pids("worker")) == 2
        # Each ingress process and each worker has its own metrics listener, on consecutive ports.
        ports = (metrics_port, metrics_port + 1)
        worker_ports = (metrics_port + 2, metrics_port + 3)
        assert shape["metrics"].strip() == (
            f"http://127.0.0.1:{ports[0]}-{ports[1]}/metrics (ingress), "
            f"http://127.0.0.1:{worker_ports[0]}-{worker_ports[1]}/metrics (workers)"
        )
        for port in ports:
            poll(partial(_scraped, port), 30, f"no metrics on port {port}")
        for port in worker_ports:
            poll(
                partial(_scraped, port, "svc_delivery_attempts_total"),
                30,
                f"no worker metrics on port {port}",
            )
        assert httpx.get(f"{up.url}/metrics", timeout=10).status_code == 404
        poll(lambda: _group_members(up) == 2, 30, "the two workers did not join one consumer group")

        webhook_id, key, power = _webhook(up, handler)
        senders = [Sender(up.url, webhook_id, key, fresh_connections=True) for _ in range(3)]
        threads = [threading.Thread(target=sender.run, daemon=True) for sender in senders]
        for thread in threads:
            thread.start()
        try:
            poll(lambda: sum(len(s.accepted) for s in senders) >= 150, 45, "triggers were not accepted")
        finally:
            for sender, thread in zip(senders, threads, strict=True):
                sender.done.set()
                thread.join(timeout=60)
        everyone = Sender(up.url, webhook_id, key)
        everyone.accepted = [execution for sender in senders for execution in sender.accepted]
        _assert_every_accepted_delivery_ended(up, power, webhook_id, everyone, "2 ingress, 2 workers")
        served = {e.get("svc_process") for e in up.logs() if e.get("msg") == "request"}
        assert {"ingress-1", "ingress-2"} <= served, served
        assert up.stop() == 0
    finally:
        up.kill()


def _group_members(up: Up) -> int:
    """Members of the workers' consumer group once it is stable, as the broker reports them."""

    async def count() -> int:
        client = AIOKafkaAdminClient(bootstrap_servers=f"127.0.0.1:{up.env['SVC_BROKER_PORT']}")
        await client.start()
        try:
            responses = await client.describe_consumer_groups(["svc-worker"])
        finally:
            await client.close()
        # DescribeGroups: (error_code, group, state, protocol_type, protocol, members, ...)
        return sum(len(group[5]) for answer in responses for group in answer.groups if group[2] == "Stable")

    return asyncio.run(count())


def test_several_processes_on_sqlite_are_refused(tmp_path: Path) -> None:
    env = svc_env(tmp_path / "data", SVC_WORKER_PROCESSES="2", SVC_LOG_LEVEL="WARNING")
    env.pop("SVC_DATABASE_URL", None)
    done = run_svc("up", env=env)
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "SVC_WORKER_PROCESSES=2" in line and "PostgreSQL" in line and "SQLite" in line, line


@pytest.mark.parametrize("command", ["up", "migrate"])
def test_an_unreachable_database_is_one_line_without_the_password(tmp_path: Path, command: str) -> None:
    port = broker.free_port()  # bound and released at once: nothing listens there
    env = svc_env(
        tmp_path / "data",
        SVC_DATABASE_URL=f"postgresql://u:secret@127.0.0.1:{port}/nodb",
        SVC_LOG_LEVEL="WARNING",
    )
    done = run_svc(command, env=env)
    assert done.returncode == 1
    assert "secret" not in done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert f"127.0.0.1:{port}" in line and "database nodb" in line, line


def _resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


async def _fill(bootstrap: str, topic: str, count: int, size: int) -> None:
    """``count`` padded renewal markers (the agents skip them) in few, large batches."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=50, max_batch_size=1 << 20)
    await producer.start()
    try:
        pad = "x" * size
        value = Envelope(type=GENERATION_MARKER_TYPE, payload={"generation": 0, "pad": pad}).to_bytes()
        for start in range(0, count, 500):
            await asyncio.gather(*[await producer.send(topic, value) for _ in range(start, start + 500)])
    finally:
        await producer.stop()


async def _svc_topics(bootstrap: str) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return {topic for topic in await admin.list_topics() if topic.startswith("svc.")}
    finally:
        await admin.close()


def test_renewals_under_load_keep_the_workers_and_lose_nothing(
    tmp_path: Path, handler: RecordingHandler
) -> None:
    """The embedded broker past its record limit is renewed several times under a stream of triggers: no
    process restarts, every accepted delivery is delivered, the old generations' topics are deleted and the
    broker's memory falls. The queued grace is ten minutes, so a record lost in a renewal would not be
    published again by a reconciler within the test: every delivery went through the generations."""
    running = Up(
        tmp_path / "data",
        SVC_RECONCILE_INTERVAL_SECONDS="1",
        SVC_QUEUED_GRACE_SECONDS="600",
        SVC_PROCESSING_GRACE_SECONDS="1",
        SVC_EMBEDDED_BROKER_RENEW_RECORDS="60",
        SVC_EMBEDDED_BROKER_RENEW_MIN_SECONDS="3",
        SVC_EMBEDDED_BROKER_RENEW_DRAIN_SECONDS="60",
        SVC_EMBEDDED_BROKER_CHECK_SECONDS="0.5",
    )
    try:
        running.start()
        bootstrap = f"127.0.0.1:{running.env['SVC_BROKER_PORT']}"
        webhook_id, key, power = _webhook(running, handler)
        (tansu,) = running.pids("broker")
        workers, ingresses = running.pids("worker"), running.pids("ingress")
        # Some 40 MiB the first renewal frees: schedule ticks no schedule made, read and skipped.
        asyncio.run(_fill(bootstrap, "svc.schedule.ticks", 20_000, 2000))
        filled = _resident_mib(tansu)
        sender = Sender(running.url, webhook_id, key)
        thread = threading.Thread(target=sender.run, daemon=True)
        thread.start()
        try:
            renewed = partial(
                lambda: [e for e in running.logs() if e.get("msg") == "embedded broker renewed"]
            )
            poll(lambda: len(renewed()) >= 1, 120, "no renewal")
            after_first = _resident_mib(tansu)
            poll(lambda: len(renewed()) >= 3, 180, "fewer than three renewals")
        finally:
            sender.done.set()
            thread.join(timeout=60)
        _assert_every_accepted_delivery_ended(running, power, webhook_id, sender, "renewed")
        succeeded = {entry["executionId"] for entry in _entries(running, power, webhook_id, "SUCCESS")}
        assert set(sender.accepted) <= succeeded
        assert len(handler.calls) >= len(sender.accepted)
        outcomes = renewed()
        assert all(entry["drained"] for entry in outcomes), outcomes
        # No process was restarted: the same broker, workers and ingress throughout.
        assert running.pids("broker") == {tansu}
        assert running.pids("worker") == workers and running.pids("ingress") == ingresses
        assert not [e for e in running.logs() if e.get("msg") == "restarting a child"]
        # Only the current generation's worker topics are left (and the one before's outside topics).
        current = max(int(entry["generation"]) for entry in outcomes)
        left = asyncio.run(_svc_topics(bootstrap))
        assert "svc.schedule.ticks" not in left and "svc.webhook.deliveries" not in left, left
        assert f"svc.webhook.deliveries.g{current}" in left, left
        assert not {t for t in left if t.endswith(f".g{current - 2}")}, left
        print(f"broker resident memory: {filled:.0f} MiB filled, {after_first:.0f} MiB after a renewal")
        assert after_first < filled - 20, (filled, after_first)
    finally:
        running.kill()
