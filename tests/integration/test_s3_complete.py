"""Every table feature with the warehouse and the object store on S3 (moto's S3 server on a loopback port):
svcdb writes from webhooks and schedules, streaming appends, describe and preview, uploads and bulk loads,
query jobs with their downloads, upload expiry, the buckets made at start-up, and S3 going away mid-work.

Each test gets its own two buckets, made by ``ensure_buckets`` as ``svc up`` makes them, and a real ingress,
broker and worker process configured with ``SVC_WAREHOUSE``, ``SVC_OBJECT_STORE`` and ``SVC_S3_ENDPOINT``.
"""

from __future__ import annotations

import csv
import io
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.expressions import EqualTo
from sqlalchemy import text

from schemas.column_types import ColumnDef, parse_column_type
from schemas.settings import Settings
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from sinks.iceberg.convert import rows_to_arrow
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.masking import Masker
from sinks.iceberg.staged import commit_staged
from sinks.iceberg.storage import table_storage
from sinks.loads.stage import StagedFiles
from sinks.objectstore import BucketUnavailable, ensure_buckets
from sinks.objectstore.buckets import s3_buckets
from tests.fixtures.processes import run_svc, svc_env
from tests.fixtures.s3 import S3Port, s3_port, s3_server
from tests.fixtures.stack import Db, Ingress, make_settings
from tests.fixtures.tables import ORDER_ROWS, Tables
from tests.fixtures.worker import Worker, worker_env
from tests.integration.analytics.test_loads import HEADER, count, csv_rows, finished, load, upload
from tests.integration.intake.test_upload_quota import call, held, links, put, ref, start
from tests.integration.scheduled.test_actions import final_run, svcdb_event
from tests.integration.webhooks.test_svcdb_delivery import TICKETS, fire_and_wait, hook

pytestmark = pytest.mark.integration

SEED_BUCKET = "svc-complete-seed"
SECRET_KEY = "complete-test-secret-0123456789"
TEXT = {"columnType": "SHORT_TEXT"}


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server for the module, the AWS chain of this process (and its workers) at a test key."""
    with pytest.MonkeyPatch.context() as patch, s3_server(patch, SEED_BUCKET, SECRET_KEY) as endpoint:
        yield endpoint


@pytest.fixture
def stack_endpoint(s3_endpoint: str) -> str:
    """The S3 endpoint the test's stack is configured with (the outage tests give their own)."""
    return s3_endpoint


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, stack_endpoint: str) -> Settings:
    """Replaces the stack's settings: warehouse and object store in two new buckets on S3."""
    unique = uuid.uuid4().hex[:12]
    settings = make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        warehouse=f"s3://svc-lake-{unique}/lake",
        object_store=f"s3://svc-objects-{unique}/svc",
        s3_endpoint=stack_endpoint,
    )
    assert ensure_buckets(settings) == [f"svc-lake-{unique}", f"svc-objects-{unique}"]
    return settings


class S3Worker(Worker):
    """A worker process on the test's S3 warehouse and object store."""

    def __init__(self, settings: Settings, log_path: Path, **extra: str) -> None:
        super().__init__(settings, log_path)
        self.extra = extra

    def env(self) -> dict[str, str]:
        return {
            **worker_env(self.settings),
            "SVC_DATABASE_URL": self.settings.resolved_database_url,
            "SVC_WAREHOUSE": self.settings.warehouse or "",
            "SVC_OBJECT_STORE": self.settings.object_store or "",
            "SVC_S3_ENDPOINT": self.settings.s3_endpoint or "",
            **self.extra,
        }


@pytest.fixture
def worker(kafka_settings: Settings, ingress_db: Db, tmp_path: Path) -> Iterator[Worker]:
    running = S3Worker(kafka_settings, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


def bucket_and_prefix(location: str | None) -> tuple[str, str]:
    assert location is not None and location.startswith("s3://")
    bucket, _, prefix = location.removeprefix("s3://").partition("/")
    return bucket, prefix.strip("/")


def s3_keys(endpoint: str, location: str | None, under: str = "") -> list[str]:
    """Every object key below ``location`` (an ``s3://bucket/prefix``) + ``under``."""
    bucket, prefix = bucket_and_prefix(location)
    client = boto3.client("s3", endpoint_url=endpoint)
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{prefix}/{under}")
    return sorted(entry["Key"] for page in pages for entry in page.get("Contents", []))


def table_files(settings: Settings, company_id: str, table_id: str, folder: str) -> list[str]:
    return s3_keys(str(settings.s3_endpoint), settings.warehouse, f"c_{company_id}/t_{table_id}/{folder}/")


def metadata_location(db: Db, company_id: str, table_id: str) -> str:
    """The table's current metadata file as the catalog (in the metadata DB) points at it: the one thing a
    commit changes, readable while S3 is away."""
    namespace, name = iceberg.identifier_for(company_id, table_id)
    query = text(
        "SELECT metadata_location FROM iceberg_tables"
        " WHERE table_namespace = :namespace AND table_name = :name"
    )
    with db.engine.connect() as connection:
        return str(connection.execute(query, {"namespace": namespace, "name": name}).scalar_one())


def wait_for(check: Any, what: str, timeout: float = 90) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def append_state(world: Tables, table_id: str, load_id: str) -> str | None:
    listed = world.analytics("jobs", table_id, {"kind": "APPEND", "limit": 100}).json()["jobs"]
    return next((str(job["state"]) for job in listed if job["jobId"] == load_id), None)


# svcdb writes


def test_svcdb_insert_update_delete_through_webhooks(
    tables_world: Tables, ingress: Ingress, worker: Worker, kafka_settings: Settings
) -> None:
    table_id = tables_world.create(TICKETS)
    insert_id, insert_key = hook(
        tables_world,
        table_id,
        {
            "operation": "INSERT",
            "values": {
                "ticket": {**TEXT, "textValue": "@@{id}"},
                "status": {**TEXT, "textValue": "@@{state}"},
                "priority": {"columnType": "NUMBER", "integerValue": "@@{p}"},
            },
        },
    )
    for ticket, priority in (("T-1", 2), ("T-2", 5), ("T-3", 7)):
        body = {"ticket": ticket, "status": "open", "priority": priority}
        entry = fire_and_wait(tables_world, ingress, insert_id, insert_key, body)
        assert entry["status"] == "SUCCESS", entry
    where = [{"conditions": [{"columnName": "ticket", "operator": "EQUALS", "value": "@@{id}"}]}]
    update: dict[str, object] = {
        "operation": "UPDATE",
        "values": {"status": {**TEXT, "textValue": "@@{state}"}},
        "whereGroups": where,
    }
    update_id, update_key = hook(tables_world, table_id, update)
    updated = fire_and_wait(
        tables_world, ingress, update_id, update_key, {"ticket": "T-1", "status": "closed"}
    )
    assert updated["status"] == "SUCCESS", updated
    delete_id, delete_key = hook(tables_world, table_id, {"operation": "DELETE", "whereGroups": where})
    deleted = fire_and_wait(tables_world, ingress, delete_id, delete_key, {"ticket": "T-2"})
    assert deleted["status"] == "SUCCESS", deleted

    rows = {row["ticket"]: row for row in tables_world.wait_rows(table_id, 2)}
    assert set(rows) == {"T-1", "T-3"}
    assert (rows["T-1"]["status"], rows["T-1"]["priority"]) == ("closed", 2)
    assert (rows["T-3"]["status"], rows["T-3"]["priority"]) == ("open", 7)
    # The delete rewrote the table's files on S3, not on the local disk.
    assert table_files(kafka_settings, tables_world.company_id, table_id, "data")
    assert not (kafka_settings.data_dir / "warehouse").exists()


def record_id(settings: Settings, company_id: str, table_id: str, ticket: str) -> int:
    """The ``_record_id`` of a row, read through the S3 catalog (the preview does not show it)."""
    catalog = iceberg.catalog_for(settings)
    try:
        table = iceberg.load_table(catalog, company_id, table_id)
        rows = table.scan(
            row_filter=EqualTo(term="ticket", value=ticket), selected_fields=("_record_id",)
        ).to_arrow()
    finally:
        catalog.engine.dispose()
    assert rows.num_rows == 1
    return int(rows.column("_record_id")[0].as_py())


def run_events(world: Tables, configs: list[dict[str, Any]]) -> None:
    """Schedule one UPDATE_SVCDB event per config (each fires once, a few seconds on) and wait for them."""
    events = [svcdb_event(world, config) for config in configs]
    for event in events:
        run = final_run(world.client, world.admin_client, event)
        assert run["status"] == "SUCCEEDED", run


def test_scheduled_svcdb_insert_and_update_by_record_id(
    tables_world: Tables, worker: Worker, kafka_settings: Settings
) -> None:
    """Scheduled events insert and update (their svcDbConfig has no DELETE; webhooks delete, above)."""
    table_id = tables_world.create({**TICKETS, "columns": TICKETS["columns"][:2]})
    inserts = [
        {
            "operation": "INSERT",
            "targetTableId": table_id,
            "values": {"ticket": {**TEXT, "textValue": ticket}, "status": {**TEXT, "textValue": "open"}},
        }
        for ticket in ("T-1", "T-2")
    ]
    run_events(tables_world, inserts)
    first = record_id(kafka_settings, tables_world.company_id, table_id, "T-1")
    closed = {"status": {**TEXT, "textValue": "closed"}}
    update = {"operation": "UPDATE", "targetTableId": table_id, "values": closed, "recordId": first}
    run_events(tables_world, [update])
    rows = tables_world.wait_rows(table_id, 2)
    assert sorted((row["ticket"], row["status"]) for row in rows) == [("T-1", "closed"), ("T-2", "open")]


# Streaming appends, describe and preview


def test_appends_describe_and_preview(tables_world: Tables, worker: Worker, kafka_settings: Settings) -> None:
    table_id = tables_world.create()
    for batch in (ORDER_ROWS[:2], ORDER_ROWS[2:]):
        answer = tables_world.analytics("append-rows", table_id, {"rows": batch})
        assert answer.status_code == 200 and answer.json()["accepted"] == len(batch), answer.text
    load_id = answer.json()["loadId"]
    rows = tables_world.wait_rows(table_id, len(ORDER_ROWS))
    assert sorted(row["order_id"] for row in rows) == [1, 2, 3, 4]
    assert {row["email"] for row in rows} <= {"••••••••", None}
    revealed = tables_world.analytics("preview", table_id, {"limit": 10, "reveal": True}).json()["rows"]
    assert {row["email"] for row in revealed} == {"a@x.io", None, "b@y.io", "c@z.io"}
    assert wait_for(lambda: append_state(tables_world, table_id, load_id) == "SUCCEEDED", "append listed")

    described = tables_world.analytics("describe", table_id, {"includeStats": True})
    assert described.status_code == 200, described.text
    entry = described.json()["tables"][0]
    assert entry["rowCount"] == 4 and entry["dataBytes"] > 0
    stats = {c["name"]: c["stats"] for c in entry["columns"]}
    assert stats["amount"]["min"] == "0.10" and stats["amount"]["max"] == "12.50"
    assert stats["region"]["topValues"][0] == {"value": "EU", "count": 2}

    data = table_files(kafka_settings, tables_world.company_id, table_id, "data")
    # Partitioned by month of placed_at: the rows of three months are in three partitions' files.
    assert len({key.rsplit("/", 2)[-2] for key in data if key.endswith(".parquet")}) == 3
    assert not (kafka_settings.data_dir / "warehouse").exists()


# Uploads and bulk loads


@pytest.mark.served  # `svc load` is a process of its own
def test_uploads_and_bulk_loads(
    tables_world: Tables, ingress: Ingress, worker: Worker, kafka_settings: Settings, tmp_path: Path
) -> None:
    table_id = tables_world.create()
    source = tmp_path / "orders.csv"
    source.write_text(HEADER + csv_rows(1, 120_000))
    # `svc load` sends two 5 MiB parts at once to the presigned S3 links, completes and loads.
    env = svc_env(tmp_path / "client", SVC_API_KEY=tables_world.admin_client)
    command = ("load", str(source), "--table", table_id, "--url", ingress.base_url, "--part-mb", "5")
    done = run_svc(*command, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert (status["state"], status["rowsLoaded"], status["rowsRejected"]) == ("SUCCEEDED", 120_000, 0)
    assert count(tables_world, table_id) == 120_000
    objects_bucket, _ = bucket_and_prefix(kafka_settings.object_store)
    endpoint = str(kafka_settings.s3_endpoint)
    (uploaded,) = s3_keys(endpoint, kafka_settings.object_store, f"uploads/{tables_world.company_id}/")
    assert uploaded.endswith("/orders.csv")
    stored = boto3.client("s3", endpoint_url=endpoint).head_object(Bucket=objects_bucket, Key=uploaded)
    assert stored["ContentLength"] == source.stat().st_size
    assert stored["ETag"].endswith('-2"')  # assembled by S3 from the two parts

    # A load that fails on its second file leaves the table and its files as they were.
    before = metadata_location(tables_world.db, tables_world.company_id, table_id)
    files = table_files(kafka_settings, tables_world.company_id, table_id, "data")
    unmapped = upload(tables_world, "unmapped.csv", b"id,region\n1,EU\n")
    small = upload(tables_world, "small.csv", (HEADER + csv_rows(500_000, 10)).encode())
    failed = finished(
        tables_world, table_id, load(tables_world, table_id, {"sourceUris": [small, unmapped]})["jobId"]
    )
    assert failed["state"] == "FAILED" and failed["error"]["errorCode"] == "INVALID_SCHEMA", failed
    assert metadata_location(tables_world.db, tables_world.company_id, table_id) == before
    assert table_files(kafka_settings, tables_world.company_id, table_id, "data") == files

    # Parquet, REPLACE: the table's rows are swapped in one commit.
    frame = pa.table({"order_id": pa.array([7, 8, 9], pa.int64()), "region": ["EU", "US", None]})
    sink = io.BytesIO()
    pq.write_table(frame, sink)
    replacing = upload(tables_world, "replace.parquet", sink.getvalue())
    body = {"sourceUris": [replacing], "mode": "REPLACE"}
    replaced = finished(tables_world, table_id, load(tables_world, table_id, body)["jobId"])
    assert replaced["state"] == "SUCCEEDED" and replaced["rowsLoaded"] == 3, replaced
    assert sorted(row["order_id"] for row in tables_world.wait_rows(table_id, 3)) == [7, 8, 9]
    assert count(tables_world, table_id) == 3


def test_expired_uploads_lose_their_parts_on_s3(
    tables_world: Tables, ingress: Ingress, kafka_settings: Settings, tmp_path: Path
) -> None:
    key = tables_world.admin_client
    upload_ = start(tables_world, key, "late.csv")
    urls = links(tables_world, key, upload_, [1])
    assert put(urls[1], b"z" * 1024 * 1024).status_code == 200
    bucket, _ = bucket_and_prefix(kafka_settings.object_store)
    raw = boto3.client("s3", endpoint_url=kafka_settings.s3_endpoint)

    def pending() -> list[str]:
        return [u["Key"] for u in raw.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]

    aborted = start(tables_world, key, "dropped.csv")
    assert put(links(tables_world, key, aborted, [1])[1], b"y" * 1024).status_code == 200
    assert sorted(pending()) == sorted([upload_["s3Key"], aborted["s3Key"]])
    answer = call(tables_world, key, "multipart-abort", ref(aborted))
    assert answer.status_code == 200 and answer.json()["state"] == "ABORTED", answer.text
    assert pending() == [upload_["s3Key"]]
    # The ingress keeps the default lifetime (a day); the worker, which sweeps, is given one second.
    sweeper = S3Worker(kafka_settings, tmp_path / "worker.log", SVC_UPLOAD_EXPIRY_SECONDS="1")
    sweeper.start()
    try:
        wait_for(
            lambda: held(tables_world.db, upload_["uploadId"])[2] == "EXPIRED" and not pending(), "swept"
        )
    finally:
        sweeper.stop()
    assert held(tables_world.db, upload_["uploadId"]) == (0, 0, "EXPIRED")
    assert held(tables_world.db, aborted["uploadId"])[2] == "ABORTED"
    assert s3_keys(str(kafka_settings.s3_endpoint), kafka_settings.object_store, "uploads/") == []


# Query jobs and their results


@pytest.mark.served  # results are downloaded from their links over HTTP
def test_query_results_pages_and_downloads(
    tables_world: Tables, worker: Worker, kafka_settings: Settings
) -> None:
    table_id = tables_world.create()
    assert tables_world.analytics("append-rows", table_id, {"rows": ORDER_ROWS}).status_code == 200
    tables_world.wait_rows(table_id, len(ORDER_ROWS))
    sql = "SELECT order_id, amount, email FROM orders ORDER BY order_id"
    answer = tables_world.analytics("query", table_id, {"sql": sql, "waitMs": 20_000}).json()
    assert answer["state"] == "SUCCEEDED", answer
    job_id = answer["jobId"]
    results = s3_keys(str(kafka_settings.s3_endpoint), kafka_settings.object_store, "results/")
    assert results == [
        f"{bucket_and_prefix(kafka_settings.object_store)[1]}/results/{tables_world.company_id}/{job_id}.parquet"
    ]

    page = tables_world.analytics("job-results", table_id, {"jobId": job_id, "pageSize": 2, "page": 1}).json()
    assert page["rows"] == [
        {"order_id": 3, "amount": "0.10", "email": "••••••••"},
        {"order_id": 4, "amount": "3.00", "email": "••••••••"},
    ]
    assert page["totalRows"] == 4 and page["hasMore"] is False

    link = tables_world.analytics("job-download-url", table_id, {"jobId": job_id}).json()
    downloaded = httpx.get(link["url"], timeout=30)
    assert downloaded.status_code == 200, downloaded.text
    lines = list(csv.reader(io.StringIO(downloaded.text)))
    assert lines[0] == ["order_id", "amount", "email"] and lines[1] == ["1", "12.50", "••••••••"]
    assert len(lines) == 5
    body = {"jobId": job_id, "format": "PARQUET", "reveal": True}
    parquet = tables_world.analytics("job-download-url", table_id, body).json()
    table = pq.read_table(io.BytesIO(httpx.get(parquet["url"], timeout=30).content))
    assert table.column("email").to_pylist() == ["a@x.io", None, "b@y.io", "c@z.io"]

    plain = tables_world.analytics(
        "query", table_id, {"sql": "SELECT order_id FROM orders", "waitMs": 20_000}
    )
    plain_link = tables_world.analytics(
        "job-download-url", table_id, {"jobId": plain.json()["jobId"], "format": "PARQUET"}
    ).json()
    streamed = pq.read_table(io.BytesIO(httpx.get(plain_link["url"], timeout=30).content))
    assert sorted(streamed.column("order_id").to_pylist()) == [1, 2, 3, 4]


# Buckets made at start-up


def test_ensure_buckets_makes_the_missing_ones(
    tmp_path: Path, s3_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    unique = uuid.uuid4().hex[:12]
    warehouse, objects = f"svc-made-{unique}", f"svc-made-{unique}-objects"
    settings = Settings(
        data_dir=tmp_path,
        warehouse=f"s3://{warehouse}/lake",
        object_store=f"s3://{objects}/svc/",
        s3_endpoint=s3_endpoint,
    )
    raw = boto3.client("s3", endpoint_url=s3_endpoint)
    off = settings.model_copy(update={"s3_create_buckets": False})
    assert ensure_buckets(off) == []
    assert warehouse not in {b["Name"] for b in raw.list_buckets()["Buckets"]}

    assert ensure_buckets(settings) == [warehouse, objects]
    assert {warehouse, objects} <= {b["Name"] for b in raw.list_buckets()["Buckets"]}
    assert ensure_buckets(settings) == []  # made already: nothing to do, no error

    shared = settings.model_copy(update={"object_store": f"s3://{warehouse}/objects"})
    assert s3_buckets(shared) == [warehouse]
    assert s3_buckets(Settings(data_dir=tmp_path)) == []
    assert ensure_buckets(Settings(data_dir=tmp_path)) == []

    # Outside us-east-1 a bucket is made in the region of the AWS chain.
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    regional = Settings(data_dir=tmp_path, object_store=f"s3://{warehouse}-eu/svc", s3_endpoint=s3_endpoint)
    assert ensure_buckets(regional) == [f"{warehouse}-eu"]
    assert raw.get_bucket_location(Bucket=f"{warehouse}-eu")["LocationConstraint"] == "eu-west-1"


def test_ensure_buckets_names_the_unreachable_endpoint(tmp_path: Path, s3_endpoint: str) -> None:
    port = S3Port()  # never opened: nothing listens there
    settings = Settings(data_dir=tmp_path, warehouse="s3://svc-nowhere/lake", s3_endpoint=port.endpoint)
    with pytest.raises(BucketUnavailable, match=f"S3 at {port.endpoint} could not be reached") as raised:
        ensure_buckets(settings)
    assert SECRET_KEY not in str(raised.value)


# S3 going away


def append_directly(settings: Settings, company_id: str, table_id: str, rows: list[dict[str, Any]]) -> None:
    catalog = iceberg.catalog_for(settings)
    try:
        table = iceberg.load_table(catalog, company_id, table_id)
        columns = iceberg.table_columns(table)
        encrypt = Masker(settings.secret_key).encryptor(company_id)
        converted = rows_to_arrow(columns, rows, load_id=uuid.uuid4().hex, first_record_id=0, encrypt=encrypt)
        assert not converted.errors, converted.errors
        writer.append(table, [(uuid.uuid4().hex, converted.table)])
    finally:
        catalog.engine.dispose()


class TestS3Outage:
    """The stack reaches S3 through a port of its own, which the test closes (an outage) and opens again."""

    @pytest.fixture
    def gateway(self, s3_endpoint: str) -> Iterator[S3Port]:
        with s3_port() as port:
            yield port

    @pytest.fixture
    def stack_endpoint(self, gateway: S3Port) -> str:
        return gateway.endpoint

    def test_a_load_fails_clearly_and_changes_nothing(
        self, tables_world: Tables, gateway: S3Port, kafka_settings: Settings, tmp_path: Path
    ) -> None:
        table_id = tables_world.create()
        # The table's first rows are written here, through the same writer a worker uses, so that the only
        # worker starts once S3 is gone and finds the load waiting for it.
        append_directly(kafka_settings, tables_world.company_id, table_id, ORDER_ROWS)
        uri = upload(tables_world, "more.csv", (HEADER + csv_rows(100, 50)).encode())
        job_id = load(tables_world, table_id, {"sourceUris": [uri]})["jobId"]
        before = metadata_location(tables_world.db, tables_world.company_id, table_id)

        gateway.close()
        loader = S3Worker(kafka_settings, tmp_path / "worker.log")
        loader.start()
        try:
            status = finished(tables_world, table_id, job_id)
            assert status["state"] == "FAILED", status
            assert status["error"] == {
                "errorCode": "STORAGE_UNAVAILABLE",
                "message": "The table storage is unavailable: the S3 service could not be reached",
                "hint": "Nothing was loaded; load again once the storage is reachable",
            }
            assert metadata_location(tables_world.db, tables_world.company_id, table_id) == before

            gateway.open()
            assert len(tables_world.wait_rows(table_id, len(ORDER_ROWS))) == len(ORDER_ROWS)
            assert count(tables_world, table_id) == len(ORDER_ROWS)
            again = finished(
                tables_world, table_id, load(tables_world, table_id, {"sourceUris": [uri]})["jobId"]
            )
            assert again["state"] == "SUCCEEDED" and again["rowsLoaded"] == 50, again
            assert count(tables_world, table_id) == len(ORDER_ROWS) + 50
        finally:
            loader.stop()

    def test_appends_wait_for_s3_and_land_once(
        self, tables_world: Tables, gateway: S3Port, worker: Worker, kafka_settings: Settings, tmp_path: Path
    ) -> None:
        table_id = tables_world.create()
        assert tables_world.analytics("append-rows", table_id, {"rows": ORDER_ROWS[:2]}).status_code == 200
        tables_world.wait_rows(table_id, 2)
        before = metadata_location(tables_world.db, tables_world.company_id, table_id)

        gateway.close()
        answer = tables_world.analytics("append-rows", table_id, {"rows": ORDER_ROWS[2:]})
        assert answer.status_code == 200 and answer.json()["accepted"] == 2, answer.text
        load_id = answer.json()["loadId"]
        log = tmp_path / "worker.log"
        wait_for(lambda: "table commit failed" in log.read_text(), "the worker tried to commit")
        # Accepted rows are never dropped: the append waits (RUNNING) and the table has not moved.
        assert append_state(tables_world, table_id, load_id) == "RUNNING"
        assert metadata_location(tables_world.db, tables_world.company_id, table_id) == before

        gateway.open()
        wait_for(lambda: append_state(tables_world, table_id, load_id) == "SUCCEEDED", "the append landed")
        assert sorted(row["order_id"] for row in tables_world.wait_rows(table_id, 4)) == [1, 2, 3, 4]
        assert count(tables_world, table_id) == 4


def test_staged_load_files_without_s3_for_the_commit_change_nothing(tmp_path: Path, s3_endpoint: str) -> None:
    """A load cut off between writing its data files and committing them (S3 went away): the commit fails
    with StorageUnavailable, the table keeps its snapshot, and once S3 is back the same files commit once."""
    company_id, table_id = uuid.uuid4().hex, uuid.uuid4().hex
    columns = [ColumnDef("id", parse_column_type("LONG"), False, False)]
    with s3_port() as gateway:
        settings = Settings(
            data_dir=tmp_path, warehouse=f"s3://svc-cut-{table_id[:12]}/lake", s3_endpoint=gateway.endpoint
        )
        ensure_buckets(settings)
        catalog = iceberg.catalog_for(settings)
        try:
            table = iceberg.create_table(catalog, company_id, table_id, columns)
            first = rows_to_arrow(columns, [{"id": 1}, {"id": 2}], load_id="a" * 32, first_record_id=0)
            writer.append(table, [("a" * 32, first.table)])
            head = table.metadata_location
            stage = StagedFiles(table, "b" * 32, writer.next_record_id(table))
            stage.add(pa.table({"id": pa.array([3, 4, 5], pa.int64())}))
            staged = stage.finish()  # the data files are on S3, named by no snapshot

            gateway.close()
            reason = "The table storage is unavailable: the S3 service could not be reached"
            with pytest.raises(StorageUnavailable, match=reason), table_storage():
                commit_staged(table, staged, replace=False, renumber=stage.renumber)
            with pytest.raises(StorageUnavailable, match=reason), table_storage():
                writer.append(table, [("c" * 32, first.table)])

            gateway.open()
            table = iceberg.load_table(catalog, company_id, table_id)
            assert table.metadata_location == head
            assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2]
            assert commit_staged(table, staged, replace=False, renumber=stage.renumber).applied
            assert not commit_staged(table, staged, replace=False, renumber=stage.renumber).applied
            assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3, 4, 5]
        finally:
            catalog.engine.dispose()
