"""An ``s3://`` warehouse on an S3-compatible service (moto's server): pyiceberg writes through its FileIO,
DuckDB reads through ``httpfs``, and the query engine's lock-down holds the company's URL prefix."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import boto3
import pyarrow as pa
import pytest
from pyiceberg.table import Table

from core.svcdb import record_predicate
from schemas.column_types import ColumnDef, parse_column_type
from schemas.jobs import QueryPlan, ViewPlan
from schemas.settings import Settings
from sinks.duckdb_engine import S3Access, endpoint_host, s3_access_for
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.read_cache import _snapshot
from sinks.iceberg.types import arrow_schema
from sinks.query_engine import QueryEngines, QueryFailed, TableSource, readable_path, run_query
from sinks.svcdb_apply import matching_ids
from tests.fixtures.s3 import s3_server
from tests.fixtures.stack import Db, make_settings
from tests.fixtures.tables import ORDER_ROWS, Tables
from tests.fixtures.worker import Worker, worker_env

pytestmark = pytest.mark.integration

BUCKET = "svc-warehouse-test"
PREFIX = "lake"
SECRET_KEY = "warehouse-test-secret-0123456789"
MINE = "a" * 32
THEIRS = "b" * 32
COLUMNS = [
    ColumnDef("id", parse_column_type("LONG"), True, False),
    ColumnDef("day", parse_column_type("DATE"), True, False),
]
ROWS = ORDER_ROWS[:3]


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on a free loopback port, the bucket made, the AWS chain pointing at a test key."""
    with pytest.MonkeyPatch.context() as patch, s3_server(patch, BUCKET, SECRET_KEY) as endpoint:
        client = boto3.client("s3", endpoint_url=endpoint)
        client.put_object(Bucket=BUCKET, Key="outside/secret.csv", Body=b"secret\nleaked\n")
        yield endpoint


def _objects(endpoint: str, prefix: str) -> dict[str, bytes]:
    client = boto3.client("s3", endpoint_url=endpoint)
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return {
        entry["Key"]: client.get_object(Bucket=BUCKET, Key=entry["Key"])["Body"].read() for entry in listed
    }


# The query engine on its own


def test_storage_properties_and_the_duckdb_secret(tmp_path: Path, s3_endpoint: str) -> None:
    settings = Settings(data_dir=tmp_path, warehouse=f"s3://{BUCKET}/{PREFIX}", s3_endpoint=s3_endpoint)
    properties = iceberg.storage_properties(settings)
    assert properties == {
        "s3.region": "us-east-1",
        "s3.endpoint": s3_endpoint,
        "s3.force-virtual-addressing": "false",
        "s3.access-key-id": "test-key",
        "s3.secret-access-key": SECRET_KEY,
        # SVC_S3_* timeouts and attempts (tests/unit/test_s3_timeouts.py follows them to each client)
        "s3.connect-timeout": "5.0",
        "s3.request-timeout": "30.0",
        "s3.retry-strategy-impl": "sinks.s3_limits.standard_retry_3",
        "svc.s3.max-attempts": "3",
    }
    assert iceberg.storage_properties(Settings(data_dir=tmp_path)) == {}
    secret = S3Access.from_properties(properties).secret_sql()
    assert f"ENDPOINT '{s3_endpoint.removeprefix('http://')}'" in secret
    assert "URL_STYLE 'path'" in secret and "USE_SSL false" in secret and "REGION 'us-east-1'" in secret
    assert endpoint_host("https://minio.internal:9000/") == ("minio.internal:9000", True)
    assert endpoint_host("minio:9000") == ("minio:9000", True)
    assert "ENDPOINT" not in S3Access(region="eu-west-1").secret_sql()
    assert s3_access_for("/warehouse/c_x/t_y/metadata/1.json", properties) is None


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory, s3_endpoint: str) -> Iterator[dict[str, Any]]:
    """Two companies' tables in the S3 warehouse and the query engines over it (read only by the tests)."""
    tmp_path = tmp_path_factory.mktemp("lake")
    settings = Settings(data_dir=tmp_path, warehouse=f"s3://{BUCKET}/{PREFIX}/", s3_endpoint=s3_endpoint)
    properties = iceberg.storage_properties(settings)
    catalog = iceberg.make_catalog(
        f"sqlite:///{tmp_path / 'catalog.db'}", settings.resolved_warehouse, **properties
    )
    tables: dict[str, Table] = {}
    for company, ids in ((MINE, range(10)), (THEIRS, range(100, 103))):
        table = iceberg.create_table(catalog, company, "c" * 32, COLUMNS)
        rows = {
            "id": list(ids),
            "day": [date(2026, 1, 1 + i % 28) for i in ids],
            "_load_id": ["load"] * len(ids),
            "_record_id": list(range(len(ids))),
        }
        table.append(pa.Table.from_pydict(rows, schema=arrow_schema(COLUMNS)))
        tables[company] = table
    warehouse = iceberg.warehouse_location(settings.resolved_warehouse)
    s3 = s3_access_for(warehouse, properties)
    engines = QueryEngines(warehouse, threads=1, memory_limit="256MB", s3=s3)
    yield {"engines": engines, "tables": tables, "endpoint": s3_endpoint, "warehouse": warehouse, "s3": s3}
    engines.close()
    catalog.engine.dispose()


def _plan(sql: str) -> QueryPlan:
    view = ViewPlan(view="t#svc", table_id="t", columns=["id", "day"], row_filter="id >= 5")
    return QueryPlan(sql=sql, views=[view], max_rows=100, timeout_seconds=60)


def _sources(table: Table, *, by_files: bool) -> dict[str, TableSource]:
    snapshot = _snapshot(table)
    files = tuple(map(readable_path, snapshot.data_files or ())) if by_files else None
    return {"t": TableSource(readable_path(snapshot.metadata_location), files)}


@pytest.mark.parametrize("by_files", [False, True], ids=["iceberg_scan", "read_parquet"])
def test_views_over_the_company_prefix_read(lake: dict[str, Any], by_files: bool) -> None:
    mine = lake["tables"][MINE]
    assert str(mine.metadata_location).startswith(f"s3://{BUCKET}/{PREFIX}/c_{MINE}/")
    cursor = lake["engines"].cursor(f"c_{MINE}")
    output = run_query(
        cursor, _plan('SELECT sum(id) AS total FROM "t#svc"'), _sources(mine, by_files=by_files)
    )
    assert output.table.to_pylist() == [{"total": 5 + 6 + 7 + 8 + 9}]


def test_svcdb_operations_find_their_rows_on_s3(lake: dict[str, Any]) -> None:
    """UPDATE/DELETE by recordId look their rows up with DuckDB over the table's own S3 access."""
    assert matching_ids(lake["tables"][MINE], record_predicate(3)) == [3]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('s3://{bucket}/outside/secret.csv')",
        "SELECT * FROM iceberg_scan('{theirs}')",
        "SELECT * FROM read_csv('{endpoint}/{bucket}/outside/secret.csv')",
        "SELECT * FROM read_csv('s3a://{bucket}/outside/secret.csv')",
        "SELECT * FROM read_csv('S3://{bucket}/outside/secret.csv')",
        "SELECT * FROM glob('s3://{bucket}/*')",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SET allowed_directories = ['s3://{bucket}/']",
        "SET enable_external_access = true",
    ],
)
def test_the_lock_down_refuses_other_prefixes_urls_and_settings(lake: dict[str, Any], sql: str) -> None:
    cursor = lake["engines"].cursor(f"c_{MINE}")
    text = sql.format(
        bucket=BUCKET, theirs=lake["tables"][THEIRS].metadata_location, endpoint=lake["endpoint"]
    )
    with pytest.raises(QueryFailed, match=r"Permission Error|configuration has been locked"):
        run_query(cursor, _plan(text), _sources(lake["tables"][MINE], by_files=False))


def test_dot_dot_passes_the_prefix_check(lake: dict[str, Any]) -> None:
    """DuckDB 1.5.5 compares the URL prefix as text and resolves `..` afterwards: only the SQL front (which
    refuses every file reader, see the end-to-end test below) stops this. If this starts failing, DuckDB
    closed the gap: update docs/analytics-queries.md and the query engine's docstring."""
    cursor = lake["engines"].cursor(f"c_{MINE}")
    escape = f"SELECT * FROM read_csv('s3://{BUCKET}/{PREFIX}/c_{MINE}/../../outside/secret.csv')"  # noqa: S608
    output = run_query(cursor, _plan(escape), _sources(lake["tables"][MINE], by_files=False))
    assert output.table.num_rows == 1


def test_create_secret_still_runs_after_the_lock(lake: dict[str, Any]) -> None:
    """The other gap the SQL front alone closes (it lets nothing but one SELECT through). A database of its
    own, so the secret made here reaches no other test."""
    engines = QueryEngines(lake["warehouse"], threads=1, memory_limit="64MB", s3=lake["s3"])
    try:
        cursor = engines.cursor("c_" + "d" * 32)
        plan = QueryPlan(
            sql="CREATE SECRET made (TYPE s3, KEY_ID 'k', SECRET 's', SCOPE 's3://elsewhere/')",
            views=[],
            max_rows=10,
            timeout_seconds=60,
        )
        assert run_query(cursor, plan, {}).table.to_pylist() == [{"Success": True}]
    finally:
        engines.close()


# End to end: the ingress and a worker on the S3 warehouse


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, s3_endpoint: str) -> Settings:
    """Replaces the stack's settings for this module: the warehouse is an S3 prefix."""
    return make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        warehouse=f"s3://{BUCKET}/{PREFIX}",
        s3_endpoint=s3_endpoint,
    )


class S3Worker(Worker):
    def start(self) -> None:
        env = worker_env(self.settings)
        env.update(
            SVC_WAREHOUSE=self.settings.warehouse or "", SVC_S3_ENDPOINT=self.settings.s3_endpoint or ""
        )
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "svc", "worker"], env=env, stdout=log, stderr=log
            )


@pytest.fixture
def worker(kafka_settings: Settings, ingress_db: Db, tmp_path: Path) -> Iterator[Worker]:
    running = S3Worker(kafka_settings, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


def test_tables_on_s3_end_to_end(tables_world: Tables, worker: Worker, s3_endpoint: str) -> None:
    table_id = tables_world.create()
    table_prefix = f"{PREFIX}/c_{tables_world.company_id}/t_{table_id}/"
    answer = tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    assert answer.status_code == 200, answer.text
    rows = tables_world.wait_rows(table_id, len(ROWS))
    assert sorted(row["order_id"] for row in rows) == [1, 2, 3]

    described = tables_world.analytics("describe", table_id, {"includeStats": True})
    assert described.status_code == 200, described.text
    entry = described.json()["tables"][0]
    assert entry["rowCount"] == 3 and entry["dataBytes"] > 0
    stats = {c["name"]: c["stats"] for c in entry["columns"]}
    assert stats["amount"]["min"] == "0.10" and stats["amount"]["max"] == "12.50"
    assert stats["region"]["topValues"][0] == {"value": "EU", "count": 2}

    sql = "SELECT region, count(*) AS n, sum(amount) AS total FROM orders GROUP BY region ORDER BY region"
    body = tables_world.analytics("query", table_id, {"sql": sql, "waitMs": 20_000}).json()
    assert body["state"] == "SUCCEEDED", body
    assert body["preview"]["rows"] == [
        {"region": "EU", "n": 2, "total": "12.60"},
        {"region": "US", "n": 1, "total": "7.00"},
    ]
    escape = f"SELECT * FROM read_csv('s3://{BUCKET}/{table_prefix}../../../outside/secret.csv')"  # noqa: S608
    refused = tables_world.analytics("query", table_id, {"sql": escape, "waitMs": 1000})
    assert refused.status_code == 400 and refused.json()["errorCode"] == "FORBIDDEN_CONSTRUCT"

    stored = _objects(s3_endpoint, table_prefix)
    assert any(key.endswith(".parquet") for key in stored)
    metadata = [data for key, data in stored.items() if key.endswith(".metadata.json")]
    assert metadata and not any(SECRET_KEY.encode() in data for data in metadata)
    dropped = tables_world.admin("drop", {"tableId": table_id})
    assert dropped.status_code == 200, dropped.text
    # pyarrow's S3 filesystem leaves an empty "directory" marker where it deleted a folder's last file.
    left = _objects(s3_endpoint, table_prefix)
    assert all(key.endswith("/") and not data for key, data in left.items()), sorted(left)
