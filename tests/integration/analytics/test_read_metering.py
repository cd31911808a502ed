"""describe with includeStats and preview read table data: they are charged against the company's daily scan
allowance, the one its queries use, and refused with 413 SCAN_LIMIT once it is used up. A hostile company
spends its allowance; its victim, another company, reads as before."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyiceberg.conversions import from_bytes
from pyiceberg.types import LongType
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.analytics import read_charges
from sinks.db.models import ReadCharge
from sinks.iceberg import catalog as iceberg
from sinks.table_reads import summary
from tests.fixtures import module_stack
from tests.fixtures.stack import Db, Ingress, make_settings
from tests.fixtures.tables import ORDER_ROWS, ORDERS, Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

ALLOWANCE = 50_000_000


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and tables, and
# the daily scan allowance is each company's own.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        stack_dir / "data", kafka_bootstrap=kafka_bootstrap, query_daily_bytes_scanned=ALLOWANCE
    )


def charged(db: Db, company_id: str) -> int:
    with db.sessions() as session:
        total = session.scalar(
            select(ReadCharge.bytes_read).where(
                ReadCharge.company_id == company_id, ReadCharge.day == datetime.now(UTC).date()
            )
        )
    return int(total or 0)


def data_files(ingress: Ingress, company_id: str, table_id: str) -> list[tuple[int, int]]:
    """(lowest _record_id, bytes) of each data file of the table's current snapshot."""
    handle = iceberg.load_table(ingress.app.state.catalog, company_id, table_id)
    field = handle.schema().find_field("_record_id").field_id
    return sorted(
        (int(from_bytes(LongType(), task.file.lower_bounds[field])), int(task.file.file_size_in_bytes))
        for task in handle.scan().plan_files()
    )


def with_rows(world: Tables, key: str | None = None, power: str | None = None) -> str:
    answer = world.admin("create", ORDERS, key=power)
    assert answer.status_code == 200, answer.text
    table_id = str(answer.json()["tableId"])
    appended = world.analytics("append-rows", table_id, {"rows": ORDER_ROWS}, key=key)
    assert appended.status_code == 200 and appended.json()["accepted"] == len(ORDER_ROWS), appended.text
    return table_id


def wait_visible(world: Tables, table_id: str, key: str | None = None) -> None:
    """Waits for the append through describe without statistics, not through preview (which is charged)."""
    deadline = time.monotonic() + 60
    while True:
        answer = world.analytics("describe", table_id, {}, key=key)
        assert answer.status_code == 200, answer.text
        if answer.json()["tables"][0]["rowCount"] == len(ORDER_ROWS):
            return
        assert time.monotonic() < deadline, "the append did not become visible"
        time.sleep(0.2)


def test_a_preview_is_charged_the_files_it_opens(
    tables_world: Tables, ingress: Ingress, worker: Worker
) -> None:
    company = tables_world.company_id
    table_id = with_rows(tables_world)
    wait_visible(tables_world, table_id)
    assert charged(tables_world.db, company) == 0  # describe without statistics reads no table data
    # The table is partitioned by month: orders 1 and 3 (November), 2 (October), 4 (September) are three
    # files whose lowest _record_ids are 1, 2 and 4.
    files = data_files(ingress, company, table_id)
    assert [first for first, _ in files] == [1, 2, 4]
    sizes = [size for _, size in files]

    cases = [(1, [1], sizes[0]), (2, [1, 2], sizes[0] + sizes[1]), (100, [1, 2, 3, 4], sum(sizes))]
    for limit, order_ids, cost in cases:
        before = charged(tables_world.db, company)
        answer = tables_world.analytics("preview", table_id, {"limit": limit})
        assert answer.status_code == 200, answer.text
        assert [row["order_id"] for row in answer.json()["rows"]] == order_ids
        assert answer.json()["rows"][0]["email"] != "a@x.io"  # still masked
        assert charged(tables_world.db, company) - before == cost, limit

    # Statistics read every file of the snapshot once.
    before = charged(tables_world.db, company)
    handle = iceberg.load_table(ingress.app.state.catalog, company, table_id)
    described = tables_world.analytics("describe", table_id, {"includeStats": True})
    assert described.status_code == 200, described.text
    assert described.json()["tables"][0]["columns"][0]["stats"]["distinctCount"] == 4
    assert charged(tables_world.db, company) - before == summary(handle).data_bytes > 0


def test_reads_stop_at_the_daily_allowance_shared_with_queries(
    tables_world: Tables, ingress: Ingress, worker: Worker
) -> None:
    hostile = tables_world.company_id
    victim = tables_world.db.create_company("Victim", "admin@victim.test")
    ours = with_rows(tables_world)
    theirs = with_rows(tables_world, key=victim.client_api_key, power=victim.poweruser_key)
    wait_visible(tables_world, ours)
    wait_visible(tables_world, theirs, key=victim.client_api_key)
    preview_cost = sum(size for _, size in data_files(ingress, hostile, ours))

    # The hostile company has read nearly all of today's allowance already.
    with tables_world.db.sessions.begin() as session:
        read_charges.charge(
            session, hostile, ALLOWANCE - preview_cost + 1, now=datetime.now(UTC), allowance=ALLOWANCE
        )
    refused = tables_world.analytics("preview", ours, {"limit": 100})
    assert refused.status_code == 413, refused.text
    body = refused.json()
    assert body["errorCode"] == "SCAN_LIMIT" and "daily scan allowance" in body["errors"][0]
    assert "00:00 UTC" in body["hint"]
    stats = tables_world.analytics("describe", ours, {"includeStats": True})
    assert stats.status_code == 413 and stats.json()["errorCode"] == "SCAN_LIMIT"
    assert tables_world.analytics("describe", ours, {}).status_code == 200
    # The allowance is the one queries use: they are refused too.
    query = tables_world.analytics("query", ours, {"sql": "SELECT count(*) AS n FROM orders"})
    assert query.status_code == 413 and query.json()["errorCode"] == "SCAN_LIMIT", query.text
    estimate = tables_world.analytics("estimate", ours, {"sql": "SELECT count(*) AS n FROM orders"})
    assert estimate.json()["withinLimits"] is False
    # A preview that opens fewer files still fits.
    assert tables_world.analytics("preview", ours, {"limit": 1}).status_code == 200
    assert charged(tables_world.db, hostile) <= ALLOWANCE

    # The victim company's allowance is its own.
    seen = tables_world.analytics("preview", theirs, {"limit": 100}, key=victim.client_api_key)
    assert seen.status_code == 200 and len(seen.json()["rows"]) == len(ORDER_ROWS)
    described = tables_world.analytics("describe", theirs, {"includeStats": True}, key=victim.client_api_key)
    assert described.status_code == 200
    assert charged(tables_world.db, victim.company_id) > 0
