from decimal import Decimal

import pytest

from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from tests.fixtures.stack import Ingress
from tests.fixtures.tables import ORDERS, Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

ROWS = [
    {
        "order_id": 1,
        "region": "EU",
        "amount": "12.50",
        "placed_at": "2026-11-01T10:00:00Z",
        "tags": ["a"],
        "email": "ann@x.io",
    },
    {
        "order_id": 2,
        "region": "US",
        "amount": 7,
        "placed_at": "2026-10-05T08:30:00+02:00",
        "tags": [],
        "email": None,
    },
    {
        "order_id": "9007199254740993",
        "region": None,
        "amount": "0.10",
        "placed_at": "2026-11-20T00:00:00Z",
        "tags": None,
        "email": "bo@y.io",
    },
]


def test_append_preview_and_an_independent_reader_agree(
    tables_world: Tables, ingress: Ingress, worker: Worker
) -> None:
    table_id = tables_world.create()
    answer = tables_world.analytics(
        "append-rows", table_id, {"rows": [*ROWS, {"order_id": "x"}, {"region": "EU"}, 5]}
    )
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["accepted"] == 3
    assert [e["index"] for e in result["errors"]] == [3, 4, 5]
    assert 'column "order_id"' in result["errors"][0]["message"]
    rows = tables_world.wait_rows(table_id, 3)
    by_id = {row["order_id"]: row for row in rows}
    assert by_id[1] == {
        "order_id": 1,
        "region": "EU",
        "amount": "12.50",
        "placed_at": by_id[1]["placed_at"],
        "tags": ["a"],
        "email": "••••••••",
    }
    assert by_id[1]["placed_at"].startswith("2026-11-01T10:00:00")
    assert by_id["9007199254740993"]["region"] is None
    assert by_id[2]["email"] is None
    revealed = tables_world.analytics("preview", table_id, {"limit": 10, "reveal": True}).json()["rows"]
    assert {row["email"] for row in revealed} == {"ann@x.io", "bo@y.io", None}

    handle = iceberg.load_table(ingress.app.state.catalog, tables_world.company_id, table_id)
    with connect() as duck:
        scanned = duck.execute(
            "SELECT order_id, amount, _load_id FROM iceberg_scan(?) ORDER BY order_id",
            [handle.metadata_location],
        ).fetchall()
    assert [(r[0], r[1]) for r in scanned] == [
        (1, Decimal("12.50")),
        (2, Decimal("7.00")),
        (9007199254740993, Decimal("0.10")),
    ]
    assert {r[2] for r in scanned} == {result["loadId"]}


def test_describe(tables_world: Tables, ingress: Ingress, worker: Worker) -> None:
    table_id = tables_world.create()
    tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    tables_world.wait_rows(table_id, 3)
    described = tables_world.analytics("describe", table_id, {"includeStats": True})
    assert described.status_code == 200, described.text
    body = described.json()
    assert body["semanticsVersion"] == 1
    entry = body["tables"][0]
    assert entry["sqlName"] == "orders"
    assert entry["rowCount"] == 3
    assert entry["dataBytes"] > 0
    assert entry["partitionSpec"] == [{"column": "placed_at", "transform": "MONTH"}]
    assert entry["measures"] == ORDERS["measures"]
    columns = {c["name"]: c for c in entry["columns"]}
    assert columns["order_id"]["synonyms"] == ["id"]
    assert columns["email"]["encrypted"] is True and columns["email"]["maskStrategy"] == "FULL"
    assert columns["region"]["stats"]["nullCount"] == 1
    assert columns["amount"]["stats"]["min"] == "0.10" and columns["amount"]["stats"]["max"] == "12.50"
    assert columns["email"]["stats"]["topValues"] == []
    plain = tables_world.analytics("describe", table_id, {}).json()["tables"][0]
    assert all("stats" not in c for c in plain["columns"])


def test_grants_hide_columns_filter_rows_and_gate_operations(
    tables_world: Tables, ingress: Ingress, worker: Worker
) -> None:
    table_id = tables_world.create()
    tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    tables_world.wait_rows(table_id, 3)
    member = tables_world.member_client
    assert tables_world.analytics("preview", table_id, {}, member).json()["errorCode"] == "FORBIDDEN"
    grant = {
        "tableId": table_id,
        "userId": tables_world.member_id,
        "level": "READ",
        "rowFilter": "region = 'EU'",
        "hiddenColumns": ["email"],
    }
    assert tables_world.admin("grant", grant).status_code == 200
    preview = tables_world.analytics("preview", table_id, {}, member).json()
    assert [c["name"] for c in preview["columns"]] == ["order_id", "region", "amount", "placed_at", "tags"]
    assert [row["order_id"] for row in preview["rows"]] == [1]
    described = tables_world.analytics("describe", table_id, {}, member).json()["tables"][0]
    assert "email" not in {c["name"] for c in described["columns"]}
    refused = tables_world.analytics("append-rows", table_id, {"rows": ROWS}, member)
    assert refused.status_code == 403 and refused.json()["errorCode"] == "FORBIDDEN"
    assert (
        tables_world.analytics("preview", table_id, {}, tables_world.outsider_client).json()["errorCode"]
        == "NOT_FOUND"
    )


def test_semantic_layer_versions(tables_world: Tables, ingress: Ingress) -> None:
    table_id = tables_world.create()
    update = {
        "tableId": table_id,
        "expectedVersion": 1,
        "grain": "order line",
        "columnSynonyms": {"amount": ["total"]},
    }
    assert tables_world.admin("update-semantics", update).json()["semanticsVersion"] == 2
    stale = tables_world.admin("update-semantics", update)
    assert stale.status_code == 409
    assert stale.json()["errorCode"] == "VERSION_CONFLICT"
    assert tables_world.analytics("describe", table_id, {}).json()["semanticsVersion"] == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"columns": [{"name": "a", "type": "TEXT"}]}, "unknown column type"),
        ({"columns": [{"name": "a", "type": "LONG", "masked": True}]}, "only STRING columns can be masked"),
        ({"columns": [{"name": "a", "type": "DECIMAL(40,2)"}]}, "precision"),
        ({"partitionSpec": [{"column": "region", "transform": "MONTH"}]}, "needs a DATE or TIMESTAMP"),
        ({"partitionSpec": [{"column": "nope", "transform": "IDENTITY"}]}, "not a column"),
        # Refused by the catalog itself, after the ingress's own checks: a 400 all the same, not a 500.
        ({"partitionSpec": [{"column": "order_id", "transform": "BUCKET[0]"}]}, "between 1 and"),
        ({"partitionSpec": [{"column": "region", "transform": "TRUNCATE[0]"}]}, "between 1 and"),
        ({"partitionSpec": [{"column": "tags", "transform": "IDENTITY"}]}, "cannot apply"),
    ],
)
def test_invalid_schema(
    tables_world: Tables, ingress: Ingress, change: dict[str, object], message: str
) -> None:
    answer = tables_world.admin("create", {**ORDERS, **change})
    assert answer.status_code == 400
    assert answer.json()["errorCode"] == "INVALID_SCHEMA"
    assert message in answer.json()["errors"][0]


def test_add_column_only_widens(tables_world: Tables, ingress: Ingress) -> None:
    table_id = tables_world.create()
    assert (
        tables_world.admin(
            "add-column", {"tableId": table_id, "column": {"name": "note", "type": "STRING"}}
        ).status_code
        == 200
    )
    widened = tables_world.admin(
        "add-column", {"tableId": table_id, "column": {"name": "amount", "type": "DECIMAL(12,2)"}}
    )
    assert widened.status_code == 200, widened.text
    narrowed = tables_world.admin(
        "add-column", {"tableId": table_id, "column": {"name": "order_id", "type": "INT"}}
    )
    assert narrowed.status_code == 400 and narrowed.json()["errorCode"] == "INVALID_SCHEMA"
    columns = {
        c["name"]: c["type"]
        for c in tables_world.analytics("describe", table_id, {}).json()["tables"][0]["columns"]
    }
    assert columns["amount"] == "DECIMAL(12,2)" and columns["note"] == "STRING"


def test_limits_and_permissions(tables_world: Tables, ingress: Ingress) -> None:
    table_id = tables_world.create()
    too_many = tables_world.analytics("append-rows", table_id, {"rows": [{"order_id": 1}] * 10_001})
    assert too_many.status_code == 413, too_many.text
    assert too_many.json()["errorCode"] == "ROW_LIMIT"
    too_big = tables_world.analytics(
        "append-rows", table_id, {"rows": [{"order_id": 1, "region": "x" * 600_000}] * 9}
    )
    assert too_big.status_code == 413, too_big.text
    assert too_big.json()["errorCode"] == "REQUEST_TOO_LARGE"  # bytes, not rows
    mismatch = tables_world.client.post(
        "/clients/svcdb/analytics/preview",
        params={"resourceId": table_id},
        headers={"Authorization": tables_world.admin_client},
        json={"tableId": "other"},
    )
    assert mismatch.status_code == 400
    missing = tables_world.analytics("describe", "f" * 32, {})
    assert missing.status_code == 404 and missing.json()["errorCode"] == "NOT_FOUND"
    member_power = tables_world.db.create_company(
        "M", "m@m.test"
    )  # a poweruser of another company is not an admin here
    denied = tables_world.admin("create", ORDERS, key=member_power.poweruser_key)
    assert denied.status_code == 200 or denied.json()["errorCode"] in {"FORBIDDEN", "INVALID_SCHEMA"}
    assert tables_world.admin("drop", {"tableId": table_id}).status_code == 200
    assert tables_world.analytics("describe", table_id, {}).status_code == 404
    assert tables_world.admin("drop", {"tableId": table_id}).json()["errorCode"] == "NOT_FOUND"
