"""DuckDB's IO/HTTP errors and the result store's errors as the caller reads them: a storage failure with a
reason and no endpoint, bucket or key. No S3 is contacted here (a closed loopback port is)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from botocore.exceptions import EndpointConnectionError

from schemas.jobs import QueryPlan, ViewPlan
from sinks import duckdb_failures
from sinks.duckdb_engine import S3Access
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.job_results import ResultGone, read_rows, result_storage
from sinks.objectstore.exceptions import CUT_OFF, DOWN, NO_ANSWER, THROTTLING, UNREACHABLE
from sinks.objectstore.local import LocalObjectStore
from sinks.query_engine import QueryEngines, QueryFailed, TableSource, run_query
from sinks.result_downloads import DownloadBrokenOff, started
from sinks.s3_limits import S3Limits

pytestmark = pytest.mark.unit

URL = "'http://10.1.2.3:9000/svc-lake/lake/c_x/t_y/data/f.parquet'"


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (f"IO Error: Could not connect to server error for HTTP HEAD to {URL}", UNREACHABLE),
        (f"IO Error: Could not establish connection error for HTTP HEAD to {URL}", UNREACHABLE),
        (f"IO Error: Timeout was reached error for HTTP GET to {URL}", NO_ANSWER),
        (f"IO Error: Connection reset by peer for HTTP GET to {URL}", CUT_OFF),
        (f"HTTP Error: HTTP GET error reading {URL} (HTTP 403 Forbidden)", duckdb_failures.REFUSED),
        (f"HTTP Error: HTTP GET error reading {URL} (HTTP 404 Not Found)", duckdb_failures.MISSING),
        (f"HTTP Error: HTTP GET error reading {URL} (HTTP 503 Service Unavailable)", DOWN),
        (f"HTTP Error: HTTP GET error reading {URL} (HTTP 500 Internal Server Error)", DOWN),
        (f"HTTP Error: HTTP GET error reading {URL} (HTTP 429 Too Many Requests)", THROTTLING),
        ('IO Error: No files found that match the pattern "/data/warehouse/c_x"', duckdb_failures.UNREADABLE),
    ],
)  # fmt: skip
def test_duckdb_storage_errors_become_a_reason_without_the_url(message: str, reason: str) -> None:
    assert duckdb_failures.is_io_error(message)
    assert duckdb_failures.storage_reason(message) == reason
    for internal in ("10.1.2.3", "svc-lake", "c_x", "/data/warehouse"):
        assert internal not in reason


@pytest.mark.parametrize("message", ["Conversion Error: Could not convert", "INTERRUPT Error: Interrupted!"])
def test_other_duckdb_errors_are_not_io_errors(message: str) -> None:
    assert not duckdb_failures.is_io_error(message)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_query_over_an_unreachable_s3_is_storage_unavailable_not_a_query_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: QueryFailed with DuckDB's text, which names the endpoint, the bucket and the key."""
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    endpoint = f"127.0.0.1:{closed_port()}"
    access = S3Access("us-east-1", f"http://{endpoint}", "key", "secret", limits=S3Limits(0.5, 1.0, 1))
    engines = QueryEngines("s3://svc-lake/lake", threads=1, memory_limit="64MB", s3=access)
    try:
        view = ViewPlan(view="t", table_id="t", columns=["x"])
        plan = QueryPlan(sql="SELECT count(*) AS n FROM t", views=[view], max_rows=10, timeout_seconds=30)
        files = ("s3://svc-lake/lake/c_x/t_y/data/f.parquet",)
        sources = {"t": TableSource("s3://svc-lake/lake/c_x/t_y/metadata/1.json", files)}
        with pytest.raises(StorageUnavailable) as raised:
            run_query(engines.cursor("c_x"), plan, sources)
    finally:
        engines.close()
    assert str(raised.value) == f"The table storage is unavailable: {UNREACHABLE}"
    assert not isinstance(raised.value, QueryFailed)
    for internal in (endpoint, "svc-lake", "c_x"):
        assert internal not in str(raised.value)


def test_a_query_error_stays_a_query_failure(tmp_path: Path) -> None:
    engines = QueryEngines(tmp_path, threads=1, memory_limit="64MB")
    try:
        plan = QueryPlan(sql="SELECT CAST('x' AS INTEGER) AS n", views=[], max_rows=10, timeout_seconds=30)
        with pytest.raises(QueryFailed, match="Conversion Error"):
            run_query(engines.cursor("c_x"), plan, {})
    finally:
        engines.close()


def test_result_storage_maps_the_store_errors() -> None:
    aws = OSError(
        "When reading information for key 'svc/results/c/j.parquet' in bucket 'svc-objects': AWS Error "
        "NETWORK_CONNECTION during HeadObject operation: curlCode: 7, Could not connect to server"
    )
    with pytest.raises(StorageUnavailable) as raised, result_storage():
        raise aws
    assert str(raised.value) == f"The result storage is unavailable: {UNREACHABLE}"
    with pytest.raises(StorageUnavailable) as raised, result_storage():
        raise EndpointConnectionError(endpoint_url="http://10.1.2.3:9000/svc-objects/svc/results/c/j.parquet")
    assert str(raised.value) == f"The result storage is unavailable: {UNREACHABLE}"
    with pytest.raises(ResultGone), result_storage():
        raise FileNotFoundError("[Errno 2] Path does not exist 'svc-objects/svc/results/c/j.parquet'")
    with pytest.raises(ValueError, match="not a storage error"), result_storage():
        raise ValueError("not a storage error")


def test_a_missing_result_file_is_gone(tmp_path: Path) -> None:
    with pytest.raises(ResultGone):
        read_rows(LocalObjectStore(tmp_path, "svc-local"), "results/c/j.parquet", 0, 10)


def failing_after(pieces: list[bytes]) -> Iterator[bytes]:
    yield from pieces
    raise OSError("AWS Error NETWORK_CONNECTION during GetObject operation: bucket svc-objects")


def test_a_download_that_cannot_start_is_refused_before_its_answer() -> None:
    with pytest.raises(StorageUnavailable, match=r"^The result storage is unavailable"):
        started(failing_after([]), "j")


def test_a_download_that_breaks_off_ends_with_an_error(caplog: pytest.LogCaptureFixture) -> None:
    body = started(failing_after([b"a", b"b"]), "j")
    assert next(body) == b"a" and next(body) == b"b"
    with pytest.raises(DownloadBrokenOff, match="after 2 bytes"):
        next(body)
    assert "a result download broke off" in caplog.text
    assert list(started(iter([]), "j")) == []
    assert b"".join(started(iter([b"x", b"y"]), "j")) == b"xy"


def test_duckdb_io_exception_is_an_operational_error() -> None:
    """The query engine catches IOException (HTTPException included) before duckdb.Error: keep it so."""
    assert issubclass(duckdb.HTTPException, duckdb.IOException)
    assert not issubclass(duckdb.PermissionException, duckdb.IOException)
