"""APPEND jobs (one per accepted /append-rows call, id = its loadId) are polled with /job-status like LOAD
jobs: QUEUED until the table's writer takes them, RUNNING while it commits them, then SUCCEEDED (or FAILED,
or CANCELLED when cancelled while queued), with the rows appended; a reader's own grant decides whether the
counts are shown. (Appends sent while no worker runs: test_append_jobs_without_a_worker.py.)"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas.settings import Settings
from sinks.db import tenancy
from tests.fixtures import module_stack
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import ORDER_ROWS, ORDERS, Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

# A LOAD job's /job-status fields (ingress/analytics/job_views.py status_body): an APPEND job answers the
# same ones.
LOAD_STATUS_FIELDS = {
    "jobId",
    "kind",
    "state",
    "bytesScanned",
    "elapsedMs",
    "error",
    "resultRowCount",
    "truncated",
    "resultColumns",
    "createdAt",
    "finishedAt",
    "rowsLoaded",
    "rowsRejected",
    "rejectedSample",
    "notes",
    "errors",
}


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


def rows_from(first: int, count: int = 4) -> list[dict[str, Any]]:
    return [{"order_id": first + i, "region": "EU" if i % 2 else "US"} for i in range(count)]


def append(world: Tables, table_id: str, rows: list[Any], key: str | None = None) -> str:
    answer = world.analytics("append-rows", table_id, {"rows": rows}, key)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["loadId"])


def status(
    world: Tables, table_id: str, job_id: str, key: str | None = None, wait_ms: int = 0
) -> httpx.Response:
    return world.analytics("job-status", table_id, {"jobId": job_id, "waitMs": wait_ms}, key)


def ended(
    world: Tables, table_id: str, job_id: str, key: str | None = None, limit: float = 90
) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        answer = status(world, table_id, job_id, key, wait_ms=5000)
        assert answer.status_code == 200, answer.text
        if answer.json()["state"] not in ("QUEUED", "RUNNING"):
            return dict(answer.json())
        assert time.monotonic() < deadline, answer.json()
        time.sleep(0.1)


def listed(world: Tables, table_id: str, key: str | None = None, **filters: Any) -> dict[str, dict[str, Any]]:
    answer = world.analytics("jobs", table_id, {"kind": "APPEND", "limit": 100, **filters}, key)
    assert answer.status_code == 200, answer.text
    return {job["jobId"]: job for job in answer.json()["jobs"]}


def grant(world: Tables, table_id: str, user_id: str, level: str = "READ", **extra: Any) -> None:
    answer = world.admin("grant", {"tableId": table_id, "userId": user_id, "level": level, **extra})
    assert answer.status_code == 200, answer.text


def order_ids(world: Tables, table_id: str) -> list[int]:
    answer = world.analytics("preview", table_id, {"limit": 100})
    assert answer.status_code == 200, answer.text
    return sorted(int(row["order_id"]) for row in answer.json()["rows"])


def test_an_append_is_polled_like_a_load(tables_world: Tables, worker: Worker) -> None:
    table_id = tables_world.create()
    sent = tables_world.analytics("append-rows", table_id, {"rows": [*ORDER_ROWS, {"order_id": "x"}]})
    assert sent.status_code == 200, sent.text
    assert sent.json()["accepted"] == len(ORDER_ROWS) and len(sent.json()["errors"]) == 1
    load_id = sent.json()["loadId"]

    first = status(tables_world, table_id, load_id)
    assert first.status_code == 200, first.text
    assert first.json()["kind"] == "APPEND" and first.json()["jobId"] == load_id
    assert first.json()["state"] in ("QUEUED", "RUNNING", "SUCCEEDED")

    done = ended(tables_world, table_id, load_id)
    assert set(done) == LOAD_STATUS_FIELDS
    assert done["state"] == "SUCCEEDED" and done["error"] is None
    # The rows appended; the refused row was answered by the call itself and is not part of the job.
    assert (done["rowsLoaded"], done["resultRowCount"]) == (len(ORDER_ROWS), len(ORDER_ROWS))
    assert (done["rowsRejected"], done["rejectedSample"], done["notes"]) == (None, [], [])
    assert done["finishedAt"] is not None and done["finishedAt"] >= done["createdAt"]
    assert isinstance(done["elapsedMs"], int) and done["elapsedMs"] >= 0
    assert done["resultColumns"] == [] and done["truncated"] is False
    assert len(tables_world.wait_rows(table_id, len(ORDER_ROWS))) == len(ORDER_ROWS)

    entry = listed(tables_world, table_id)[load_id]
    assert (entry["state"], entry["resultRowCount"]) == ("SUCCEEDED", len(ORDER_ROWS))
    assert entry["finishedAt"] == done["finishedAt"] and entry["elapsedMs"] == done["elapsedMs"]
    # Cancelling an ended append changes nothing and answers its final state.
    cancelled = tables_world.analytics("cancel", table_id, {"jobId": load_id})
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "SUCCEEDED", cancelled.text
    # An append has no result pages: /job-results is for queries.
    assert tables_world.analytics("job-results", table_id, {"jobId": load_id}).status_code == 404


def test_append_counts_follow_the_readers_own_grant(tables_world: Tables, worker: Worker) -> None:
    world = tables_world
    table_id = world.create()
    victim = append(world, table_id, rows_from(1))  # the admin's: 2 EU rows, 2 US rows
    assert ended(world, table_id, victim)["rowsLoaded"] == 4

    # A member whose grant shows only the EU rows sees the admin's append and its state, not its counts:
    # they would say how many rows were added that the member may not see.
    grant(world, table_id, world.member_id, "WRITE", rowFilter="region = 'EU'")
    seen = status(world, table_id, victim, world.member_client)
    assert seen.status_code == 200, seen.text
    body = seen.json()
    assert body["state"] == "SUCCEEDED" and body["finishedAt"] is not None
    assert (body["rowsLoaded"], body["resultRowCount"]) == (None, None)
    assert len(body["notes"]) == 1 and "row filter" in body["notes"][0]
    assert listed(world, table_id, world.member_client)[victim]["resultRowCount"] is None
    # Their own append's counts are theirs: they sent the rows.
    own = append(world, table_id, [{"order_id": 100, "region": "EU"}], world.member_client)
    assert ended(world, table_id, own, world.member_client)["rowsLoaded"] == 1
    assert listed(world, table_id, world.member_client)[own]["resultRowCount"] == 1

    # A reader of every row (hidden columns hide no row) sees the counts.
    with world.db.sessions.begin() as session:
        other = tenancy.create_user(session, world.company_id, "reader@acme.test")
    grant(world, table_id, other.user_id, hiddenColumns=["email"])
    assert status(world, table_id, victim, other.client_api_key).json()["rowsLoaded"] == 4
    assert listed(world, table_id, other.client_api_key)[victim]["resultRowCount"] == 4

    # Without READ on the table: refused before the job is looked at.
    with world.db.sessions.begin() as session:
        stranger = tenancy.create_user(session, world.company_id, "stranger@acme.test")
    refused = status(world, table_id, victim, stranger.client_api_key)
    assert refused.status_code == 403 and refused.json()["errorCode"] == "FORBIDDEN"

    # Another company never finds the append: not through the victim's table, not through its own.
    assert status(world, table_id, victim, world.outsider_client).status_code == 404
    hostile = world.db.create_company("Evil", "admin@evil.test")
    evil_table = world.admin("create", ORDERS, hostile.poweruser_key).json()["tableId"]
    for call in ("job-status", "cancel"):
        answer = world.analytics(call, evil_table, {"jobId": victim}, hostile.client_api_key)
        assert answer.status_code == 404 and answer.json()["errorCode"] == "NOT_FOUND", answer.text
    assert victim not in listed(world, evil_table, hostile.client_api_key)
