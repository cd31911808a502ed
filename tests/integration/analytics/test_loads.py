"""Bulk loads end to end: files uploaded through the intake, a LOAD job through Kafka and a worker, one
Iceberg commit per load, rejected rows counted and sampled, all or nothing."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from schemas.settings import Settings
from sinks.iceberg import catalog as iceberg
from tests.fixtures import module_stack
from tests.fixtures.processes import run_svc, svc_env
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.integration, pytest.mark.served]  # parts go to signed links over HTTP

INTAKE = "/clients/svcdb-intake"
PART = 5 * 1024 * 1024
HEADER = "order_id,region,amount,placed_at,email\n"


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table. The test
# that kills a worker mid-load has a stack of its own, in test_load_worker_kill.py.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


def csv_rows(first: int, count: int) -> str:
    return "".join(
        f"{i},R{i % 7},{i % 1000}.{i % 100:02d},2026-0{1 + i % 9}-0{1 + i % 9}T10:00:00Z,u{i}@x.io\n"
        for i in range(first, first + count)
    )


def upload(world: Tables, name: str, data: bytes, part_bytes: int = PART) -> str:
    key = {"Authorization": world.admin_client}
    started = world.client.post(f"{INTAKE}/multipart-initiate", headers=key, json={"fileName": name}).json()
    parts = [data[i : i + part_bytes] for i in range(0, len(data), part_bytes)] or [b""]
    links = world.client.post(
        f"{INTAKE}/multipart-part-urls",
        headers=key,
        json={
            "uploadId": started["uploadId"],
            "s3Key": started["s3Key"],
            "partNumbers": list(range(1, len(parts) + 1)),
        },
    ).json()["partUrls"]
    etags = {}
    for number, part in enumerate(parts, start=1):
        sent = httpx.put(links[str(number)], content=part, timeout=60)
        assert sent.status_code == 200, sent.text
        etags[str(number)] = sent.headers["ETag"]
    done = world.client.post(
        f"{INTAKE}/multipart-complete",
        headers=key,
        json={"uploadId": started["uploadId"], "s3Key": started["s3Key"], "partETags": etags},
    )
    assert done.status_code == 200, done.text
    return str(done.json()["s3Uri"])


def load(world: Tables, table_id: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = world.analytics("load-from-s3", table_id, body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"] == "QUEUED"
    return dict(answer.json())


def finished(world: Tables, table_id: str, job_id: str, limit: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        status = world.analytics("job-status", table_id, {"jobId": job_id, "waitMs": 5000}).json()
        if status["state"] not in ("QUEUED", "RUNNING"):
            return dict(status)
        assert time.monotonic() < deadline, status
        time.sleep(0.1)


def count(world: Tables, table_id: str) -> int:
    answer = world.analytics("query", table_id, {"sql": "SELECT count(*) AS n FROM orders", "waitMs": 20_000})
    return int(answer.json()["preview"]["rows"][0]["n"])


def snapshot(ingress: Ingress, world: Tables, table_id: str) -> int | None:
    handle = iceberg.load_table(ingress.app.state.catalog, world.company_id, table_id)
    head = handle.current_snapshot()
    return None if head is None else int(head.snapshot_id)


def test_a_multipart_csv_loads_end_to_end(tables_world: Tables, worker: Worker) -> None:
    table_id = tables_world.create()
    data = (HEADER + csv_rows(1, 250_000)).encode()
    assert len(data) > 2 * PART
    uri = upload(tables_world, "orders.csv", data)
    started = load(tables_world, table_id, {"sourceUris": [uri]})
    assert started["notes"] and "masked" in started["notes"][0]
    status = finished(tables_world, table_id, started["jobId"])
    assert status["state"] == "SUCCEEDED", status
    assert status["rowsLoaded"] == 250_000 and status["rowsRejected"] == 0 and status["rejectedSample"] == []
    assert count(tables_world, table_id) == 250_000
    rows = tables_world.analytics(
        "query",
        table_id,
        {
            "sql": "SELECT order_id, amount, email FROM orders WHERE order_id = 42",
            "waitMs": 20_000,
            "reveal": True,
        },
    ).json()["preview"]["rows"]
    assert rows == [{"order_id": 42, "amount": "42.42", "email": "u42@x.io"}]
    listed = tables_world.analytics("jobs", table_id, {"kind": "LOAD"}).json()["jobs"]
    assert [j["jobId"] for j in listed] == [started["jobId"]]


def test_parquet_replace_and_mapping(tables_world: Tables, worker: Worker) -> None:
    table_id = tables_world.create()
    first = upload(tables_world, "first.csv", (HEADER + csv_rows(1, 50)).encode())
    assert (
        finished(tables_world, table_id, load(tables_world, table_id, {"sourceUris": [first]})["jobId"])[
            "state"
        ]
        == "SUCCEEDED"
    )
    frame = pa.table(
        {
            "id": pa.array([7, 8, 9], pa.int32()),
            "zone": ["EU", "US", None],
            "placed": pa.array([1_700_000_000_000_000] * 3, pa.timestamp("us", tz="UTC")),
            "ignored": [1.5, 2.5, 3.5],
        }
    )
    sink = io.BytesIO()
    pq.write_table(frame, sink)
    second = upload(tables_world, "second.parquet", sink.getvalue())
    body = {
        "sourceUris": [second],
        "mode": "REPLACE",
        "columnMapping": {"id": "order_id", "zone": "region", "placed": "placed_at"},
    }
    status = finished(tables_world, table_id, load(tables_world, table_id, body)["jobId"])
    assert status["state"] == "SUCCEEDED", status
    assert status["rowsLoaded"] == 3
    assert any("ignored" in note for note in status["notes"])
    preview = tables_world.analytics(
        "query", table_id, {"sql": "SELECT order_id, region, amount FROM orders ORDER BY 1", "waitMs": 20_000}
    ).json()["preview"]["rows"]
    assert preview == [
        {"order_id": 7, "region": "EU", "amount": None},
        {"order_id": 8, "region": "US", "amount": None},
        {"order_id": 9, "region": None, "amount": None},
    ]


def test_bad_rows_are_counted_and_sampled(tables_world: Tables, worker: Worker) -> None:
    table_id = tables_world.create()
    text = (
        HEADER
        + csv_rows(1, 3)
        + "x,EU,1.00,2026-01-01T00:00:00Z,a@b.c\n"
        + "5,EU,1.234,2026-01-01T00:00:00Z,\n"
    )
    text += "6,EU,2.00,not a time,\n" + "7,too,few\n" + csv_rows(8, 2)
    uri = upload(tables_world, "bad.csv", text.encode())
    status = finished(tables_world, table_id, load(tables_world, table_id, {"sourceUris": [uri]})["jobId"])
    assert status["state"] == "SUCCEEDED", status
    assert status["rowsLoaded"] == 5 and status["rowsRejected"] == 4
    sample = status["rejectedSample"]
    assert [entry["row"] for entry in sorted(sample, key=lambda e: e["row"])] == [4, 5, 6, 7]
    by_row = {entry["row"]: entry for entry in sample}
    assert by_row[4]["column"] == "order_id" and by_row[4]["source"] == uri
    assert by_row[5]["column"] == "amount"
    assert by_row[4]["values"]["email"] == "••••"
    assert count(tables_world, table_id) == 5


def test_a_failing_load_changes_nothing(tables_world: Tables, ingress: Ingress, worker: Worker) -> None:
    table_id = tables_world.create()
    good = upload(tables_world, "good.csv", (HEADER + csv_rows(1, 20)).encode())
    assert (
        finished(tables_world, table_id, load(tables_world, table_id, {"sourceUris": [good]})["jobId"])[
            "state"
        ]
        == "SUCCEEDED"
    )
    before = snapshot(ingress, tables_world, table_id)
    more = upload(tables_world, "more.parquet", (HEADER + csv_rows(100, 20)).encode())  # not Parquet inside
    status = finished(
        tables_world,
        table_id,
        load(tables_world, table_id, {"sourceUris": [good, more], "format": "PARQUET"})["jobId"],
    )
    assert status["state"] == "FAILED" and status["error"]["errorCode"] == "LOAD_FAILED", status
    assert snapshot(ingress, tables_world, table_id) == before
    assert count(tables_world, table_id) == 20


def test_load_requests_are_checked(tables_world: Tables, worker: Worker) -> None:
    table_id = tables_world.create()
    foreign = tables_world.analytics(
        "load-from-s3", table_id, {"sourceUris": ["s3://svc-local/uploads/other/x/orders.csv"]}
    )
    assert foreign.status_code == 404 and foreign.json()["errorCode"] == "NOT_FOUND"
    uri = upload(tables_world, "orders.data", b"order_id\n1\n")
    unknown = tables_world.analytics("load-from-s3", table_id, {"sourceUris": [uri]})
    assert unknown.status_code == 400 and "format" in unknown.json()["errors"][0]
    mapping = tables_world.analytics(
        "load-from-s3", table_id, {"sourceUris": [uri], "format": "CSV", "columnMapping": {"a": "nope"}}
    )
    assert mapping.status_code == 400 and mapping.json()["errorCode"] == "INVALID_SCHEMA"
    member = tables_world.analytics(
        "load-from-s3", table_id, {"sourceUris": [uri], "format": "CSV"}, tables_world.member_client
    )
    assert member.status_code == 403


def test_svc_load_uploads_and_loads_a_file_in_one_command(
    tables_world: Tables, ingress: Ingress, worker: Worker, tmp_path: Path
) -> None:
    table_id = tables_world.create()
    source = tmp_path / "orders.csv"
    # Over 5 MiB with 5 MiB parts: two parts sent at once, streamed from the file.
    source.write_text(HEADER + csv_rows(1, 120_000) + "x,EU,1.00,2026-01-01T00:00:00Z,\n")
    assert source.stat().st_size > 5 * 1024 * 1024
    env = svc_env(tmp_path / "client", SVC_API_KEY=tables_world.admin_client)
    url = ingress.base_url
    done = run_svc(
        "load", str(source), "--table", table_id, "--url", url, "--part-mb", "5", env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["state"] == "SUCCEEDED" and status["rowsLoaded"] == 120_000 and status["rowsRejected"] == 1
    assert "120000 rows loaded" in done.stderr
    assert count(tables_world, table_id) == 120_000
    missing = run_svc("load", str(tmp_path / "nope.csv"), "--table", table_id, env=env)
    assert missing.returncode == 2
