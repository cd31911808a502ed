"""POST /svc_poweruser/analytics/tables/maintain on the real stack: company admins only, another company's
table is not found, and appends sent through the API while compaction runs all land exactly once."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

EVENTS = {
    "sqlName": "events",
    "name": "Events",
    "columns": [{"name": "event_id", "type": "LONG"}, {"name": "day", "type": "DATE"}],
    "partitionSpec": [{"column": "day", "transform": "MONTH"}],
}
EVERY_ACTION = ["COMPACT", "EXPIRE_SNAPSHOTS", "REMOVE_ORPHANS"]
COUNTS = "SELECT count(*) AS n, count(DISTINCT event_id) AS d, sum(event_id) AS s FROM events"


def maintain(world: Tables, table_id: str, key: str | None = None, **body: Any) -> httpx.Response:
    return world.admin("maintain", {"tableId": table_id, "actions": ["COMPACT"], **body}, key)


def rows(first: int, count: int) -> list[dict[str, Any]]:
    return [{"event_id": first + n, "day": f"2026-0{1 + n % 2}-01"} for n in range(count)]


def totals(world: Tables, table_id: str) -> dict[str, Any]:
    answer = world.analytics("query", table_id, {"sql": COUNTS, "waitMs": 20_000})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["state"] == "SUCCEEDED", body
    found: dict[str, Any] = body["preview"]["rows"][0]
    return {name: int(value) for name, value in found.items()}


def test_only_a_company_admin_maintains_and_another_companys_table_is_not_found(tables_world: Tables) -> None:
    table_id = tables_world.create(EVENTS)
    done = maintain(tables_world, table_id, dryRun=True)
    assert done.status_code == 200, done.text
    assert done.json() == {
        "filesBefore": 0,
        "filesAfter": 0,
        "snapshotsExpired": 0,
        "orphansRemoved": 0,
        "bytesReclaimed": 0,
        "moreToCompact": False,
        "errors": [],
    }
    # A member of the company, even with WRITE on the table, may not.
    granted = tables_world.admin(
        "grant", {"tableId": table_id, "userId": tables_world.member_id, "level": "WRITE"}
    )
    assert granted.status_code == 200, granted.text
    member = maintain(tables_world, table_id, tables_world.member_power)
    assert member.status_code == 403 and member.json()["errorCode"] == "FORBIDDEN", member.text
    # The admin of another company: the table does not exist for them, as for every other table call.
    hostile = tables_world.db.create_company("Hostile", "admin@hostile.test")
    foreign = maintain(tables_world, table_id, hostile.poweruser_key, actions=["REMOVE_ORPHANS"])
    assert foreign.status_code == 404 and foreign.json()["errorCode"] == "NOT_FOUND", foreign.text
    unknown = maintain(tables_world, "c" * 32)
    assert unknown.status_code == 404 and unknown.json()["errorCode"] == "NOT_FOUND", unknown.text
    bad: dict[str, Any]
    for bad in ({"actions": []}, {"actions": ["VACUUM"]}, {"dryRun": "maybe"}, {"extra": 1}):
        refused = maintain(tables_world, table_id, **bad)
        assert refused.status_code == 400, (bad, refused.text)


def test_appends_through_the_api_while_compaction_runs_land_exactly_once(
    tables_world: Tables, worker: Worker
) -> None:
    table_id = tables_world.create(EVENTS)
    sent = 0
    for batch in range(8):
        answer = tables_world.analytics("append-rows", table_id, {"rows": rows(batch * 10, 10)})
        assert answer.status_code == 200, answer.text
        sent += 10
        tables_world.wait_rows(table_id, min(sent, 100))
    before = totals(tables_world, table_id)
    dry = maintain(tables_world, table_id, dryRun=True).json()
    assert dry["filesBefore"] >= 8 and dry["filesAfter"] == 2, dry

    stop = threading.Event()
    appended: list[int] = []
    failures: list[str] = []

    def keep_appending() -> None:
        batch = 100
        while not stop.is_set():
            answer = tables_world.analytics("append-rows", table_id, {"rows": rows(batch * 10, 10)})
            if answer.status_code != 200:
                failures.append(answer.text)
                return
            appended.append(batch)
            batch += 1
            time.sleep(0.05)

    appender = threading.Thread(target=keep_appending)
    appender.start()
    reports: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and (len(reports) < 3 or len(appended) < 15):
            answer = maintain(
                tables_world, table_id, actions=["COMPACT", "EXPIRE_SNAPSHOTS", "REMOVE_ORPHANS"]
            )
            assert answer.status_code == 200, answer.text
            reports.append(answer.json())
    finally:
        stop.set()
        appender.join(timeout=60)
    assert not failures, failures
    assert any(r["filesAfter"] < r["filesBefore"] for r in reports), reports
    # Snapshots are within the retention and files within the orphan age: nothing of them was touched.
    assert all(r["snapshotsExpired"] == 0 and r["orphansRemoved"] == 0 for r in reports), reports

    expected_ids = list(range(80)) + [batch * 10 + n for batch in appended for n in range(10)]
    deadline = time.monotonic() + 60
    while tables_world._writes_in_flight(table_id) and time.monotonic() < deadline:
        time.sleep(0.1)
    after = totals(tables_world, table_id)
    assert after == {"n": len(expected_ids), "d": len(expected_ids), "s": sum(expected_ids)}
    assert before == {"n": 80, "d": 80, "s": sum(range(80))}
    listed = tables_world.admin("snapshots", {"tableId": table_id, "limit": 1000}).json()["snapshots"]
    assert "REPLACE" in {snapshot["operation"] for snapshot in listed}
