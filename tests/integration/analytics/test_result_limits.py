"""Result bytes are bounded: a query's result stops at the plan's result-size limit
(``SVC_QUERY_MAX_RESULT_BYTES``) and says it is truncated, and downloads stream from the stored file in
bounded pieces instead of being built whole in the ingress's memory."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest

from schemas.settings import Settings
from sinks.job_results import result_key
from sinks.objectstore import object_store
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.integration, pytest.mark.served]  # downloads stream over real HTTP

WIDE = {
    "sqlName": "wide",
    "name": "Wide",
    "columns": [
        {"name": "k", "type": "LONG"},
        {"name": "x", "type": "DOUBLE"},
        {"name": "label", "type": "STRING"},
    ],
}
SIDE = 600
# 360,000 rows of doubles that do not compress: a stored result of about 13 MB in 36 row groups.
CROSS = (
    "SELECT a.k * 1000 + b.k AS id, a.x * b.x AS p1, a.x / (b.x + 1) AS p2, sqrt(a.x + b.x) AS p3, "
    "ln(a.x * b.x + 1) AS p4 FROM wide a CROSS JOIN wide b"
)


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, request: pytest.FixtureRequest) -> Settings:
    """The test's settings; a test parametrized indirectly with a number sets the result-size limit."""
    extra: dict[str, Any] = {}
    if getattr(request, "param", None) is not None:
        extra["query_max_result_bytes"] = request.param
    return make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, **extra)


@pytest.fixture
def wide(tables_world: Tables, worker: Worker) -> str:
    table_id = tables_world.create(WIDE)
    rng = random.Random(7)  # noqa: S311 - test data, not secrets
    rows = [{"k": k, "x": rng.random(), "label": f"row-{k:05d}-{rng.random():.12f}"} for k in range(SIDE)]
    answer = tables_world.analytics("append-rows", table_id, {"rows": rows})
    assert answer.status_code == 200, answer.text
    tables_world.wait_rows(table_id, 100)
    count = query(tables_world, table_id, "SELECT count(*) AS n FROM wide")
    assert count["preview"]["rows"] == [{"n": SIDE}] and count["preview"]["truncated"] is False
    return table_id


def query(world: Tables, table_id: str, sql: str) -> dict[str, Any]:
    answer = world.analytics("query", table_id, {"sql": sql, "waitMs": 20_000})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    assert body["state"] == "SUCCEEDED", body
    return body


@pytest.mark.parametrize("kafka_settings", [8192], indirect=True)
def test_a_result_stops_at_the_byte_limit_and_is_truncated(tables_world: Tables, wide: str) -> None:
    body = query(tables_world, wide, "SELECT k, x, label FROM wide ORDER BY k")
    preview = body["preview"]
    kept = preview["totalRows"]
    assert preview["truncated"] is True and 0 < kept < SIDE, preview["totalRows"]
    assert [r["k"] for r in preview["rows"]] == list(range(min(kept, 200)))
    status = tables_world.analytics("job-status", wide, {"jobId": body["jobId"]}).json()
    assert status["truncated"] is True and status["resultRowCount"] == kept
    assert "result-size limit" in status["notes"][0]
    pages = tables_world.analytics("job-results", wide, {"jobId": body["jobId"], "pageSize": 1000}).json()
    assert len(pages["rows"]) == kept and pages["hasMore"] is False and pages["truncated"] is True
    # A result under the limit is whole, and the row limit still cuts first when it is the lower one.
    small = query(tables_world, wide, "SELECT k FROM wide ORDER BY k LIMIT 10")["preview"]
    assert small["truncated"] is False and small["totalRows"] == 10
    rows_first = tables_world.analytics(
        "query", wide, {"sql": "SELECT k FROM wide", "waitMs": 20_000, "maxRows": 5}
    ).json()
    assert rows_first["preview"]["truncated"] is True and rows_first["preview"]["totalRows"] == 5
    status = tables_world.analytics("job-status", wide, {"jobId": rows_first["jobId"]}).json()
    assert "notes" not in status


def download(url: str, target: Path) -> tuple[httpx.Headers, int, int]:
    """Stream ``url`` into ``target``: the headers, the pieces received, and the peak of Python memory
    allocated meanwhile in this process (which also runs the ingress)."""
    pieces = 0
    tracemalloc.start()
    try:
        with httpx.stream("GET", url, timeout=120) as response, target.open("wb") as out:
            assert response.status_code == 200
            for piece in response.iter_raw():
                pieces += 1
                out.write(piece)
            headers = response.headers
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return headers, pieces, peak


def test_downloads_of_a_large_result_stream(
    tables_world: Tables, wide: str, kafka_settings: Settings, tmp_path: Path
) -> None:
    job_id = query(tables_world, wide, CROSS)["jobId"]
    store = object_store(kafka_settings)
    key = result_key(tables_world.company_id, job_id)
    size = store.size(key)
    assert size > 8 * 1024 * 1024
    assert pq.ParquetFile(Path(kafka_settings.resolved_object_store) / key).num_row_groups > 10

    link = tables_world.analytics("job-download-url", wide, {"jobId": job_id, "format": "PARQUET"}).json()
    headers, pieces, peak = download(link["url"], tmp_path / "result.parquet")
    assert headers.get("transfer-encoding") == "chunked" and "content-length" not in headers
    assert pieces > 4 and (tmp_path / "result.parquet").stat().st_size == size
    assert peak < size / 4, (peak, size)
    table = pq.read_table(tmp_path / "result.parquet")
    assert table.num_rows == SIDE * SIDE and table.column_names == ["id", "p1", "p2", "p3", "p4"]

    # CSV is rendered row by row in Python: a smaller result of several row groups keeps the test short.
    job_id = query(tables_world, wide, CROSS + " LIMIT 45000")["jobId"]
    link = tables_world.analytics("job-download-url", wide, {"jobId": job_id}).json()
    pieces = 0
    with httpx.stream("GET", link["url"], timeout=120) as response:
        assert response.status_code == 200
        assert response.headers.get("transfer-encoding") == "chunked"
        lines = 0
        for piece in response.iter_bytes():
            pieces += 1
            lines += piece.count(b"\n")
    assert pieces > 4 and lines == 45_001
