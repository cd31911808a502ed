"""The disk fills up while the service runs: a real stack whose data directory (the SQLite file, the local
object store, the Iceberg warehouse) is a small tmpfs of the test's own, filled to the last byte and freed.

While it is full, the writes that need it answer 503 with ``Retry-After`` in their area's shape, saying the
storage is full, never a 500 and never an acknowledgement of a write that did not happen; ``/readyz`` says
``storage: full``; the worker waits instead of failing work. Once the room is back the stack recovers by
itself: every delivery, append and query acknowledged before or during the full disk completes, once, and new
calls are accepted again. On PostgreSQL the metadata database is not on the small disk, so the calls that only
write the database are accepted throughout and the writes to the object store and the warehouse are the
ones refused or waited out."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import make_url

from ingress.errors import STORAGE_FULL
from schemas.admin import CreatedCompany, GrantSpec, ResourceSpec
from schemas.enums import AccessLevel
from schemas.settings import Settings
from sinks.db import resources, write_lock
from sinks.iceberg.exceptions import StorageFull
from sinks.kafka_admin import ensure_topics
from sinks.objectstore import MIN_PART_BYTES
from sinks.objectstore.local import LocalObjectStore
from tests.fixtures import postgres
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.small_disk import SmallDisk, small_disk
from tests.fixtures.stack import Db, Ingress, make_settings, migrated
from tests.fixtures.tables import ORDERS, Tables, new_tables_world
from tests.fixtures.worker import Worker
from tests.integration.outage_helpers import uncommitted, unfinished, wait_until
from tests.integration.webhooks.delivery_helpers import TRIGGER

pytestmark = pytest.mark.integration

DISK_MIB = 64
# Where the metadata database lives on the small disk, a write may still fit in the pages its write-ahead log
# already holds: the calls go on until the first refusal, within these bounds.
MOST_CALLS_BEFORE_A_REFUSAL = 3000
REFUSAL_SECONDS = 120.0
DATABASE_ON_THE_DISK = postgres.backend() != "postgresql"


@dataclass
class Stack:
    settings: Settings
    db: Db
    ingress: Ingress
    worker: Worker
    company: CreatedCompany
    disk: SmallDisk


@pytest.fixture
def stack(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Stack]:
    with small_disk(DISK_MIB) as disk:
        settings = make_settings(
            disk.root / "data",
            kafka_bootstrap=kafka_bootstrap,
            rate_limit_per_minute=1_000_000,
            rate_limit_per_day=100_000_000,
            webhook_rate_limit_per_minute=1_000_000,
            webhook_rate_limit_per_day=100_000_000,
            storage_min_free_bytes=1024 * 1024,
        )
        asyncio.run(ensure_topics(settings))
        with migrated(settings) as db:
            company = db.create_company("Hooks", "admin@hooks.test")
            ingress = Ingress(settings)
            ingress.start()
            worker = Worker(settings, tmp_path / "worker.log")  # its log off the small disk
            worker.start()
            try:
                yield Stack(settings, db, ingress, worker, company, disk)
            finally:
                disk.free()
                worker.stop()
                ingress.stop()


def _webhook(stack: Stack, handler: RecordingHandler) -> tuple[str, str]:
    company = stack.company
    with stack.db.sessions.begin() as session:
        tool = resources.create_resource(
            session, company.company_id, ResourceSpec(type="TOOL", name="recorder", endpoint=handler.url)
        )
        resources.grant(
            session, GrantSpec(user_id=company.user_id, resource_id=tool.resource_id, level=AccessLevel.READ)
        )
    config = {
        "name": "orders",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
        "executionSettings": {"timeoutSeconds": 10, "maxRetries": 3, "retryDelaySeconds": 1},
    }
    made = stack.ingress.client.post(
        "/svc_poweruser/custom-webhooks/create",
        headers={"Authorization": company.poweruser_key},
        json={"webhookConfig": config},
    )
    assert made.status_code == 200, made.text
    return made.json()["webhook"]["id"], made.json()["apiKey"]


def _trigger(stack: Stack, webhook_id: str, key: str, n: int, note: str = "") -> httpx.Response:
    body = {"order": {"id": n, "note": note}}
    return stack.ingress.client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json=body
    )


def _large_trigger(stack: Stack, webhook_id: str, key: str, n: int) -> httpx.Response:
    """A body over the inline limit: it goes to the object store, on the small disk whatever the database."""
    return _trigger(stack, webhook_id, key, n, "x" * (stack.settings.inline_body_bytes + 1024))


def _check_full(answer: httpx.Response, shape: str) -> None:
    """A 503 with Retry-After saying the storage is full, in the ``shape`` of its area."""
    assert answer.status_code == 503, (shape, answer.status_code, answer.text)
    assert int(answer.headers["Retry-After"]) > 0, answer.headers
    body = answer.json()
    assert body["errors"] == [STORAGE_FULL], body
    if shape == "trigger":
        assert body["success"] is False and body["message"] == STORAGE_FULL and body["executionId"] is None
    elif shape == "analytics":
        assert body["errorCode"] == "STORAGE_UNAVAILABLE" and body["hint"], body
    else:
        assert set(body) == {"errors"}, body


def _until_refused(call: Callable[[int], httpx.Response], ok: int, shape: str) -> list[httpx.Response]:
    """Calls until the first refusal (checked); the calls acknowledged before it (status ``ok``)."""
    accepted: list[httpx.Response] = []
    deadline = time.monotonic() + REFUSAL_SECONDS
    for n in range(MOST_CALLS_BEFORE_A_REFUSAL):
        answer = call(n)
        if answer.status_code != ok:
            _check_full(answer, shape)
            return accepted
        accepted.append(answer)
        assert time.monotonic() < deadline, f"{len(accepted)} calls accepted on a full disk"
    raise AssertionError(f"{len(accepted)} calls accepted on a full disk")


def _check_ready_says_full(client: httpx.Client) -> None:
    ready = client.get("/readyz")
    assert ready.status_code == 503, ready.text
    assert ready.json()["checks"]["storage"] == "full" and "storage full" in ready.json()["errors"]
    assert int(ready.headers["Retry-After"]) > 0


def _wait_ready(client: httpx.Client) -> None:
    wait_until("ready again", lambda: client.get("/readyz").status_code == 200, timeout=30, step=0.25)
    assert client.get("/readyz").json()["checks"]["storage"] == "ok"


def _until_accepted(call: Callable[[], httpx.Response], ok: int) -> httpx.Response:
    """The first acknowledged call: for a moment after the room is back, a refusal may still be answered."""
    deadline = time.monotonic() + 30
    while True:
        answer = call()
        if answer.status_code == ok:
            return answer
        assert answer.status_code == 503 and time.monotonic() < deadline, answer.text
        time.sleep(0.2)


def test_deliveries_wait_out_a_full_disk_and_none_is_lost_or_doubled(
    stack: Stack, handler: RecordingHandler
) -> None:
    webhook_id, key = _webhook(stack, handler)
    client = stack.ingress.client
    before = [_trigger(stack, webhook_id, key, n) for n in range(5)]
    assert [answer.status_code for answer in before] == [202] * 5, [a.text for a in before]
    first = {answer.json()["executionId"] for answer in before}
    wait_until("the first deliveries", lambda: unfinished(stack.db, webhook_id, first) == (set(), 0), 60, 0.2)
    handler.delay = 1.0  # deliveries in the worker's hands when the disk fills: their outcomes find it full
    in_hand = [_trigger(stack, webhook_id, key, 100 + n) for n in range(5)]
    assert [answer.status_code for answer in in_hand] == [202] * 5, [a.text for a in in_hand]
    first |= {answer.json()["executionId"] for answer in in_hand}

    stack.disk.fill()
    _check_ready_says_full(client)
    large = _large_trigger(stack, webhook_id, key, 900)
    assert large.status_code == 503 and int(large.headers["Retry-After"]) > 0, large.text
    assert large.json()["success"] is False and large.json()["executionId"] is None, large.text
    assert large.json()["message"].startswith("The object storage is full"), large.text
    if DATABASE_ON_THE_DISK:
        during = _until_refused(lambda n: _trigger(stack, webhook_id, key, 1000 + n), 202, "trigger")
        _check_full(_trigger(stack, webhook_id, key, 999_999), "trigger")
    else:  # the delivery is written to the database server, which has room
        during = [_trigger(stack, webhook_id, key, 1000 + n) for n in range(5)]
        assert [answer.status_code for answer in during] == [202] * 5, [a.text for a in during]
    time.sleep(3)  # the worker meets the full disk with deliveries in hand
    assert stack.worker.process is not None and stack.worker.process.poll() is None
    handler.delay = 0.0

    stack.disk.free()
    _wait_ready(client)
    after = [_until_accepted(partial(_trigger, stack, webhook_id, key, 2000 + n), 202) for n in range(5)]
    after.append(_until_accepted(partial(_large_trigger, stack, webhook_id, key, 2900), 202))

    accepted = first | {answer.json()["executionId"] for answer in during + after}
    wait_until(
        "every acknowledged delivery succeeded, nothing left running",
        lambda: unfinished(stack.db, webhook_id, accepted) == (set(), 0),
        timeout=120,
        step=0.5,
    )
    calls = Counter(execution for execution, _attempt in handler.successes())
    assert accepted <= set(calls)
    assert [execution for execution, times in calls.items() if times > 1] == []
    assert stack.worker.process is not None and stack.worker.process.poll() is None  # waited, never crashed
    if DATABASE_ON_THE_DISK:
        assert "storage full" in stack.worker.log_path.read_text()


def _append(world: Tables, table_id: str, first_id: int) -> httpx.Response:
    row = {"order_id": first_id, "region": "EU", "amount": "1.50", "placed_at": "2026-11-01T10:00:00Z"}
    return world.analytics("append-rows", table_id, {"rows": [row]})


def _query(world: Tables, table_id: str, sql: str) -> httpx.Response:
    return world.analytics("query", table_id, {"sql": sql, "waitMs": 0})


def _job_state(world: Tables, table_id: str, job_id: str) -> dict[str, Any]:
    answer = world.analytics("job-status", table_id, {"jobId": job_id})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _ended(state: Callable[[], dict[str, Any]]) -> bool:
    return state()["state"] not in ("QUEUED", "RUNNING")


@contextlib.contextmanager
def _held(worker: Worker) -> Iterator[None]:
    """The worker stopped for the block, at a moment it holds no turn at SQLite's write lock (a held lock
    would keep the block's own writes waiting)."""
    process = worker.process
    assert process is not None
    for _ in range(100):
        process.send_signal(signal.SIGSTOP)
        if _write_lock_free(worker.settings):
            break
        process.send_signal(signal.SIGCONT)
        time.sleep(0.05)
    else:
        raise AssertionError("the worker always held the write lock")
    try:
        yield
    finally:
        process.send_signal(signal.SIGCONT)


def _write_lock_free(settings: Settings) -> bool:
    """Nobody holds a group committer's turn or SQLite's write lock now (always, on PostgreSQL)."""
    url = make_url(settings.resolved_database_url)
    turns = write_lock.writer_turns(url)
    if turns is None or not url.database:
        return True
    descriptor = os.open(turns.path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(descriptor, fcntl.LOCK_UN)
    except BlockingIOError:
        return False
    finally:
        os.close(descriptor)
    with contextlib.closing(sqlite3.connect(url.database, timeout=0, isolation_level=None)) as connection:
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            return False
        connection.execute("ROLLBACK")
    return True


def _put_part(client: httpx.Client, url: str, data: bytes) -> httpx.Response:
    return client.put(urlsplit(url).path + "?" + urlsplit(url).query, content=data)


def test_appends_uploads_and_queries_refuse_or_wait_while_full_and_complete_after(stack: Stack) -> None:
    world = new_tables_world(stack.ingress, stack.db)
    client = stack.ingress.client
    table_id = world.create(ORDERS)
    assert _append(world, table_id, 1).status_code == 200
    world.wait_rows(table_id, 1)
    intake = "/clients/svcdb-intake"
    auth = {"Authorization": world.admin_client}
    upload = client.post(f"{intake}/multipart-initiate", headers=auth, json={"fileName": "orders.csv"}).json()
    ref = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"]}
    links = client.post(f"{intake}/multipart-part-urls", headers=auth, json={**ref, "partNumbers": [1]})
    assert links.status_code == 200, links.text
    link = links.json()["partUrls"]["1"]
    part = b"order_id,region,amount,placed_at\n" + b"7,EU,1.00,2026-11-01T10:00:00Z\n" * 4096
    count = "SELECT count(*) AS n, count(DISTINCT order_id) AS d FROM orders"

    # Work in the worker's hands when the disk fills: the worker held for a moment (well within its session
    # timeout), an append and a query accepted, the disk filled, the worker let go.
    with _held(stack.worker):
        in_hand = [_append(world, table_id, 2), _query(world, table_id, count)]
        assert [answer.status_code for answer in in_hand] == [200, 200], [a.text for a in in_hand]
        stack.disk.fill()
    _check_ready_says_full(client)
    # The object store is on the small disk whatever the database: the part finds no room.
    _check_full(_put_part(client, link, part), "errors")
    if DATABASE_ON_THE_DISK:
        appended = _until_refused(lambda n: _append(world, table_id, 1000 + n), 200, "analytics")
        queried = _until_refused(lambda _n: _query(world, table_id, count), 200, "analytics")
        _check_full(_query(world, table_id, count), "analytics")
    else:  # the rows and the job are kept by the database server; the worker waits for room to write them
        appended = [_append(world, table_id, 1000 + n) for n in range(3)]
        queried = [_query(world, table_id, count)]
        assert [answer.status_code for answer in appended + queried] == [200] * 4, [
            answer.text for answer in appended + queried
        ]
    appended.insert(0, in_hand[0])
    queried.insert(0, in_hand[1])
    time.sleep(3)  # the worker meets the full disk with the appends and the queries in hand
    for answer in queried:
        assert _job_state(world, table_id, answer.json()["jobId"])["state"] in ("QUEUED", "RUNNING")

    stack.disk.free()
    _wait_ready(client)
    stored = _until_accepted(lambda: _put_part(client, link, part), 200)
    etag = stored.headers["ETag"]
    completed = client.post(
        f"{intake}/multipart-complete", headers=auth, json={**ref, "partETags": {"1": etag}}
    )
    assert completed.status_code == 200, completed.text
    appended.append(_until_accepted(lambda: _append(world, table_id, 5000), 200))

    load_ids = {answer.json()["loadId"] for answer in appended}
    wait_until("every acknowledged append committed", lambda: not uncommitted(stack.db, load_ids), 120, 0.5)
    for answer in queried:  # the queries acknowledged on the full disk ran once there was room: never FAILED
        state = partial(_job_state, world, table_id, answer.json()["jobId"])
        wait_until("a query acknowledged on the full disk", partial(_ended, state), timeout=120, step=0.5)
        assert state()["state"] == "SUCCEEDED", state()
    ran = world.analytics("query", table_id, {"sql": count, "waitMs": 20_000})
    assert ran.status_code == 200 and ran.json()["state"] == "SUCCEEDED", ran.text
    rows = 1 + len(appended)
    assert ran.json()["preview"]["rows"] == [{"n": rows, "d": rows}]  # every acknowledged row, each once
    assert stack.worker.process is not None and stack.worker.process.poll() is None


def test_the_local_object_store_keeps_nothing_of_a_write_without_room_and_completes_afterwards() -> None:
    with small_disk(16) as disk:
        store = LocalObjectStore(disk.root / "objects", "svc-local")
        key = "uploads/c/u/orders.csv"
        upload_id = store.initiate_multipart(key)
        parts = {1: b"\x01" * MIN_PART_BYTES, 2: b"the last part\n"}
        etags = {number: store.put_part(key, upload_id, number, data) for number, data in parts.items()}
        disk.fill()
        with pytest.raises(StorageFull, match=r"^The object storage is full$"):
            store.put_bytes("results/r.parquet", b"\x02" * 65_536)
        with pytest.raises(StorageFull):
            store.put_part(key, upload_id, 3, b"\x03" * 65_536)
        with pytest.raises(StorageFull):
            store.initiate_multipart("uploads/c/v/other.csv")
        with pytest.raises(StorageFull):  # completing writes the upload's manifest
            store.complete_multipart(key, upload_id, etags)
        left = sorted(path.name for path in (disk.root / "objects").rglob("*") if path.is_file())
        assert [name for name in left if name.endswith(".tmp")] == []
        assert not store.exists("results/r.parquet") and not store.exists(key)

        disk.free()
        store.complete_multipart(key, upload_id, etags)  # the same call, once there is room
        assert store.get_bytes(key) == parts[1] + parts[2]
        store.put_bytes("results/r.parquet", b"\x02" * 65_536)
        assert store.size("results/r.parquet") == 65_536
