"""Time travel on the real stack: a table appended in two commits is read as of each snapshot, by id and by
time, with the reader's grant of today, and its snapshots are listed by /snapshots.

The table ``sales`` gets two rows, then a column ``region``, then two more rows (with a region). The
module's tests share that table and its stack (ingress, worker): they only read it, and each grants its own
readers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas.settings import Settings
from sinks.db import tenancy
from sinks.iceberg import catalog as iceberg
from tests.fixtures import module_stack
from tests.fixtures.stack import Db, Ingress, make_settings
from tests.fixtures.tables import Tables, new_tables_world
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

# The module's one stack (tests/fixtures/module_stack.py); kafka_settings below is this module's own.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES

SALES = {
    "sqlName": "sales",
    "name": "Sales",
    "columns": [
        {"name": "sale_id", "type": "LONG"},
        {"name": "customer", "type": "STRING"},
        {"name": "amount", "type": "DECIMAL(10,2)"},
        {"name": "note", "type": "STRING", "masked": True},
    ],
}
FIRST = [
    {"sale_id": 1, "customer": "alice", "amount": "900.00", "note": "vip"},
    {"sale_id": 2, "customer": "bob", "amount": "5.00", "note": "n2"},
]
SECOND = [
    {"sale_id": 3, "customer": "carol", "amount": "77.70", "note": "n3", "region": "EU"},
    {"sale_id": 4, "customer": "bob", "amount": "6.00", "note": None, "region": "EU"},
]
BULLETS = "••••••••"


class History:
    def __init__(self, world: Tables, table_id: str) -> None:
        self.world = world
        self.table_id = table_id
        listed = snapshots(world, table_id)
        assert listed.status_code == 200, listed.text
        self.new, self.old = listed.json()["snapshots"]

    def sql(self, template: str, **values: str) -> str:
        """``template`` with each ``$<NAME>`` of ``values``, then ``$OLD`` and ``$NEW`` (snapshot ids)."""
        values = {**values, "OLD": self.old["snapshotId"], "NEW": self.new["snapshotId"]}
        for name, value in values.items():
            template = template.replace(f"${name}", value)
        return template

    def query(self, template: str, key: str | None = None, **values: str) -> httpx.Response:
        body = {"sql": self.sql(template, **values), "waitMs": 20_000}
        return self.world.analytics("query", self.table_id, body, key)

    def rows(self, template: str, key: str | None = None, **values: str) -> list[dict[str, Any]]:
        answer = self.query(template, key, **values)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["state"] == "SUCCEEDED", body
        rows: list[dict[str, Any]] = body["preview"]["rows"]
        return rows

    def ids(self, template: str, key: str | None = None, **values: str) -> list[int]:
        return [int(row["sale_id"]) for row in self.rows(template, key, **values)]


def snapshots(world: Tables, table_id: str, key: str | None = None, **extra: Any) -> httpx.Response:
    return world.admin("snapshots", {"tableId": table_id, **extra}, key)


def append(world: Tables, table_id: str, rows: list[dict[str, Any]], total: int) -> None:
    answer = world.analytics("append-rows", table_id, {"rows": rows})
    assert answer.status_code == 200, answer.text
    world.wait_rows(table_id, total)


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


@pytest.fixture(scope="module")
def tables_world(ingress: Ingress, ingress_db: Db) -> Tables:
    return new_tables_world(ingress, ingress_db)


@pytest.fixture(scope="module")
def history(tables_world: Tables, worker: Worker) -> History:
    table_id = tables_world.create(SALES)
    append(tables_world, table_id, FIRST, 2)
    added = tables_world.admin(
        "add-column", {"tableId": table_id, "column": {"name": "region", "type": "STRING"}}
    )
    assert added.status_code == 200, added.text
    append(tables_world, table_id, SECOND, 4)
    return History(tables_world, table_id)


def grant(world: Tables, table_id: str, user_id: str, **extra: Any) -> None:
    answer = world.admin("grant", {"tableId": table_id, "userId": user_id, "level": "READ", **extra})
    assert answer.status_code == 200, answer.text


def test_snapshots_lists_both_commits_newest_first_to_readers(tables_world: Tables, history: History) -> None:
    new, old = history.new, history.old
    assert set(new) == {"snapshotId", "committedAt", "operation", "addedRows", "addedFiles", "totalRows"}
    assert isinstance(new["snapshotId"], str) and new["snapshotId"].isdigit()
    assert (new["operation"], new["addedRows"], new["totalRows"]) == ("APPEND", 2, 4)
    assert (old["operation"], old["addedRows"], old["totalRows"]) == ("APPEND", 2, 2)
    assert new["addedFiles"] >= 1 and old["addedFiles"] >= 1
    assert new["committedAt"] >= old["committedAt"]
    # Pages: newest first, then the next page from the cursor.
    first = snapshots(tables_world, history.table_id, limit=1).json()
    assert [s["snapshotId"] for s in first["snapshots"]] == [new["snapshotId"]] and first["nextCursor"]
    rest = snapshots(tables_world, history.table_id, limit=1, cursor=first["nextCursor"]).json()
    assert [s["snapshotId"] for s in rest["snapshots"]] == [old["snapshotId"]] and rest["nextCursor"] is None
    bad = snapshots(tables_world, history.table_id, cursor="not-a-cursor")
    assert bad.status_code == 400 and bad.json()["errorCode"] == "INVALID_REQUEST", bad.text
    # READ on the table is needed (a company admin has it); another company's table is not found.
    with tables_world.db.sessions.begin() as session:  # a reader of its own: the table is shared
        reader = tenancy.create_user(session, tables_world.company_id, "reader@acme.test")
    refused = snapshots(tables_world, history.table_id, reader.poweruser_key)
    assert refused.status_code == 403 and refused.json()["errorCode"] == "FORBIDDEN", refused.text
    grant(tables_world, history.table_id, reader.user_id, rowFilter="customer = 'bob'")
    allowed = snapshots(tables_world, history.table_id, reader.poweruser_key)
    assert allowed.status_code == 200 and len(allowed.json()["snapshots"]) == 2, allowed.text
    # Row counts would tell a row-filtered reader how many hidden rows each commit added: none for them.
    for shown in allowed.json()["snapshots"]:
        assert shown["addedRows"] is None and shown["totalRows"] is None, shown
        assert shown["addedFiles"] is not None
    outsider = tables_world.db.create_company("Third", "admin@third.test")
    missing = snapshots(tables_world, history.table_id, outsider.poweruser_key)
    assert missing.status_code == 404 and missing.json()["errorCode"] == "NOT_FOUND", missing.text


def test_each_snapshot_reads_by_id_and_by_time_with_its_own_columns(history: History) -> None:
    everything = "SELECT sale_id FROM sales $AS_OF ORDER BY sale_id"
    assert history.ids(everything, AS_OF="FOR VERSION AS OF $OLD") == [1, 2]
    assert history.ids(everything, AS_OF="FOR VERSION AS OF '$OLD'") == [1, 2]
    assert history.ids(everything, AS_OF="FOR VERSION AS OF $NEW") == [1, 2, 3, 4]
    # committedAt as /snapshots writes it is a timestamp the SQL reads (UTC).
    at = "FOR TIMESTAMP AS OF TIMESTAMP '$AT'"
    assert history.ids(everything, AS_OF=at, AT=history.old["committedAt"]) == [1, 2]
    assert history.ids(everything, AS_OF=at, AT=history.old["committedAt"] + " UTC") == [1, 2]
    assert history.ids(everything, AS_OF=at, AT=history.new["committedAt"]) == [1, 2, 3, 4]
    assert history.ids(everything, AS_OF=at, AT="2999-01-01 00:00:00 UTC") == [1, 2, 3, 4]
    assert history.ids(everything, AS_OF="") == [1, 2, 3, 4]
    # The table now joined with itself then: the rows added since.
    sql = (
        "SELECT n.sale_id, n.region FROM sales n "
        "LEFT JOIN sales FOR VERSION AS OF $OLD AS o ON n.sale_id = o.sale_id "
        "WHERE o.sale_id IS NULL ORDER BY n.sale_id"
    )
    assert history.rows(sql) == [{"sale_id": 3, "region": "EU"}, {"sale_id": 4, "region": "EU"}]
    # A column added after the snapshot is not in it: unknown only where the query names it.
    answer = history.query("SELECT * FROM sales FOR VERSION AS OF $OLD ORDER BY sale_id")
    columns = [c["name"] for c in answer.json()["preview"]["columns"]]
    assert columns == ["sale_id", "customer", "amount", "note", "_load_id", "_record_id"]
    named = history.query("SELECT region FROM sales FOR VERSION AS OF $OLD")
    assert named.status_code == 400, named.text
    body = named.json()
    assert body["errorCode"] == "UNKNOWN_COLUMN"
    assert history.sql("sales FOR VERSION AS OF $OLD") in body["hint"] and "region" not in body["hint"]


def test_todays_grant_applies_to_the_past(tables_world: Tables, history: History) -> None:
    """Row filter, hidden and masked columns of the reader's grant today hold for every snapshot."""
    grant(
        tables_world,
        history.table_id,
        tables_world.member_id,
        rowFilter="customer = 'bob'",
        hiddenColumns=["amount"],
    )
    member = tables_world.member_client
    rows = history.rows("SELECT * FROM sales FOR VERSION AS OF $OLD", member)
    assert [(r["sale_id"], r["customer"], r["note"]) for r in rows] == [(2, "bob", BULLETS)]
    assert "amount" not in rows[0]
    hidden = history.query("SELECT amount FROM sales FOR VERSION AS OF $OLD", member)
    assert hidden.status_code == 400 and hidden.json()["errorCode"] == "UNKNOWN_COLUMN", hidden.text
    assert (
        "alice"
        not in history.query(
            "SELECT customer FROM sales FOR VERSION AS OF $OLD UNION ALL SELECT customer FROM sales", member
        ).text
    )
    # A row filter naming a column added after the snapshot: the column is null in the snapshot's rows.
    with tables_world.db.sessions.begin() as session:
        regional = tenancy.create_user(session, tables_world.company_id, "eu@acme.test")
    grant(tables_world, history.table_id, regional.user_id, rowFilter="region = 'EU'")
    assert history.ids("SELECT sale_id FROM sales FOR VERSION AS OF $OLD", regional.client_api_key) == []
    assert history.ids("SELECT sale_id FROM sales ORDER BY sale_id", regional.client_api_key) == [3, 4]


def test_an_unknown_snapshot_or_a_time_before_the_first_is_not_found(history: History) -> None:
    for clause in ("FOR VERSION AS OF 12345", "FOR TIMESTAMP AS OF TIMESTAMP '2000-01-01 00:00:00 UTC'"):
        for operation in ("query", "estimate"):
            sql = history.sql("SELECT * FROM sales $CLAUSE", CLAUSE=clause)
            answer = history.world.analytics(operation, history.table_id, {"sql": sql})
            assert answer.status_code == 404, answer.text
            body = answer.json()
            assert body["errorCode"] == "NOT_FOUND"
            assert "/svc_poweruser/analytics/tables/snapshots" in body["hint"]
    other = history.query("SELECT * FROM sales FOR VERSION BETWEEN 1 AND 2")
    assert other.status_code == 400 and other.json()["errorCode"] == "FORBIDDEN_CONSTRUCT", other.text


def test_the_estimate_reads_the_old_snapshots_files(
    tables_world: Tables, history: History, ingress: Ingress
) -> None:
    old = int(history.old["snapshotId"])
    handle = iceberg.load_table(ingress.app.state.catalog, tables_world.company_id, history.table_id)
    old_bytes = sum(task.file.file_size_in_bytes for task in handle.scan(snapshot_id=old).plan_files())
    now_bytes = sum(task.file.file_size_in_bytes for task in handle.scan().plan_files())
    assert 0 < old_bytes < now_bytes

    def estimate(template: str) -> int:
        answer = tables_world.analytics("estimate", history.table_id, {"sql": history.sql(template)})
        assert answer.status_code == 200, answer.text
        assert answer.json()["referencedTables"] == ["sales"]
        return int(answer.json()["estimatedBytesScanned"])

    assert estimate("SELECT * FROM sales FOR VERSION AS OF $OLD") == old_bytes
    assert estimate("SELECT * FROM sales") == now_bytes
    both = "SELECT n.sale_id FROM sales n JOIN sales FOR VERSION AS OF $OLD o ON n.sale_id = o.sale_id"
    assert estimate(both) == old_bytes + now_bytes
    ran = history.query("SELECT count(*) AS n FROM sales FOR VERSION AS OF $OLD")
    assert ran.json()["bytesScanned"] == old_bytes
