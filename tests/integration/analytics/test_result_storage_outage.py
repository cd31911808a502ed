"""Query jobs and their results while S3 (moto's server) cannot be reached: a query whose table files
cannot be read ends ``FAILED`` with ``STORAGE_UNAVAILABLE`` and a message naming no endpoint, bucket or
key; reading a stored result (/job-results, a download link) answers 503 ``STORAGE_UNAVAILABLE`` with
Retry-After; and a download whose store goes away midway ends with its connection cut, never as a shorter
file that looks whole.

The stack reaches S3 through a port of its own which the test closes (``S3Port``), or through a relay that
cuts every connection after a given number of bytes (``CuttingRelay``), so the outage starts at a known point
of a download. S3 limits as the blackhole tests have them: connect 0.5 s, read 1 s, 2 attempts."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import closing, suppress
from pathlib import Path
from typing import Any

import httpx
import pytest

from ingress.errors import STORAGE_RETRY_AFTER_SECONDS
from schemas.settings import Settings
from sinks.result_downloads import DOWNLOAD_CHUNK_BYTES
from tests.fixtures.s3 import S3Port
from tests.fixtures.stack import Db
from tests.fixtures.tables import ORDER_ROWS, Tables
from tests.integration import outage_helpers
from tests.integration.analytics.test_loads import finished
from tests.integration.outage_helpers import gateway
from tests.integration.test_s3_complete import S3Worker

__all__ = ["gateway"]  # a fixture

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

SECRET_KEY = "result-outage-secret-0123456789"
LIMITS: dict[str, Any] = {
    "s3_connect_timeout_seconds": 0.5,
    "s3_read_timeout_seconds": 1.0,
    "s3_max_attempts": 2,
}
UNREACHABLE = "the S3 service could not be reached"
SQL = "SELECT order_id, region FROM orders ORDER BY order_id"
STORAGE_503 = {
    "errorCode": "STORAGE_UNAVAILABLE",
    "errors": [f"The result storage is unavailable: {UNREACHABLE}"],
    "hint": f"Nothing was changed; retry in {STORAGE_RETRY_AFTER_SECONDS} seconds",
}


class CuttingRelay:
    """A TCP relay on a loopback port onto S3. ``cut_after(n)``: once n more bytes have come back from S3,
    every connection is cut and the port is closed, so new connections are refused."""

    def __init__(self, upstream: str) -> None:
        self._upstream = upstream.removeprefix("http://").rsplit(":", 1)
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(0.1)
        self.endpoint = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._budget: int | None = None
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, name="s3-relay", daemon=True).start()

    def cut_after(self, budget: int) -> None:
        with self._lock:
            self._budget = budget

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client = self._listener.accept()[0]
            except TimeoutError:
                continue
            except OSError:
                return
            server = socket.create_connection((self._upstream[0], int(self._upstream[1])))
            with self._lock:
                self._open += [client, server]
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, counted: bool) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            spent = False
            if counted and data:
                with self._lock:
                    if self._budget is not None:
                        data = data[: self._budget]
                        self._budget -= len(data)
                        spent = self._budget <= 0
            try:
                if data:
                    target.sendall(data)
            except OSError:
                data = b""
            if spent:
                self.close()
            if not data:
                for end in (source, target):
                    with closing(end):
                        pass
                return

    def close(self) -> None:
        self._stopped.set()
        self._listener.close()
        with self._lock:
            for connection in self._open:
                with suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with outage_helpers.module_s3("svc-result-outage-seed", SECRET_KEY) as endpoint:
        yield endpoint


@pytest.fixture
def relay(gateway: S3Port) -> Iterator[CuttingRelay]:
    made = CuttingRelay(gateway.endpoint)
    yield made
    made.close()


@pytest.fixture
def stack_endpoint(gateway: S3Port) -> str:
    return gateway.endpoint


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, stack_endpoint: str) -> Settings:
    """Replaces the stack's settings: the warehouse and the object store on S3 at ``stack_endpoint``."""
    return outage_helpers.s3_settings(tmp_path / "data", kafka_bootstrap, stack_endpoint, **LIMITS)


@pytest.fixture
def worker(kafka_settings: Settings, ingress_db: Db, gateway: S3Port, tmp_path: Path) -> Iterator[S3Worker]:
    """A worker on the same S3 through the gateway (never through the relay), with the same S3 limits."""
    running = S3Worker(
        kafka_settings,
        tmp_path / "worker.log",
        SVC_S3_ENDPOINT=gateway.endpoint,
        SVC_S3_CONNECT_TIMEOUT_SECONDS=str(LIMITS["s3_connect_timeout_seconds"]),
        SVC_S3_READ_TIMEOUT_SECONDS=str(LIMITS["s3_read_timeout_seconds"]),
        SVC_S3_MAX_ATTEMPTS=str(LIMITS["s3_max_attempts"]),
    )
    running.start()
    yield running
    running.stop()


def internals(settings: Settings, *endpoints: str) -> list[str]:
    """What no answer may name: the S3 endpoints (host and port) and the buckets."""
    buckets = [
        str(location).removeprefix("s3://").split("/")[0]
        for location in (settings.warehouse, settings.object_store)
    ]
    return [e.removeprefix("http://") for e in endpoints] + [e.rsplit(":", 1)[1] for e in endpoints] + buckets


def succeeded_query(world: Tables, table_id: str, rows: list[dict[str, Any]]) -> str:
    assert world.analytics("append-rows", table_id, {"rows": rows}).status_code == 200
    world.wait_rows(table_id, len(rows))
    answer = world.analytics("query", table_id, {"sql": SQL, "waitMs": 20_000}).json()
    assert answer["state"] == "SUCCEEDED", answer
    return str(answer["jobId"])


def test_a_query_whose_table_files_cannot_be_read_fails_with_storage_unavailable(
    tables_world: Tables, gateway: S3Port, worker: S3Worker, kafka_settings: Settings
) -> None:
    """The first query reads the table's metadata into the ingress's and the worker's caches, so the second
    one is planned and started without S3 and fails where DuckDB reads the table's files (before: FAILED
    ``QUERY_FAILED`` with DuckDB's text, which names the endpoint, the bucket and the file)."""
    table_id = tables_world.create()
    succeeded_query(tables_world, table_id, ORDER_ROWS)

    gateway.close()
    # Not from the result cache: the same query on the same snapshot would be answered without reading.
    body = {"sql": SQL, "waitMs": 0, "useQueryCache": False}
    job_id = tables_world.analytics("query", table_id, body).json()["jobId"]
    status = finished(tables_world, table_id, job_id)
    assert status["state"] == "FAILED", status
    assert status["error"] == {
        "errorCode": "STORAGE_UNAVAILABLE",
        "message": f"The table storage is unavailable: {UNREACHABLE}",
        "hint": "Run the query again once the storage is reachable",
    }
    for internal in internals(kafka_settings, gateway.endpoint):
        assert internal not in str(status), internal


def test_a_stored_result_that_cannot_be_read_is_503_with_retry_after(
    tables_world: Tables, gateway: S3Port, worker: S3Worker, kafka_settings: Settings
) -> None:
    """/job-results and a download link answer 503 (before: 500 for the page, and a 200 whose body broke
    off for the download)."""
    table_id = tables_world.create()
    job_id = succeeded_query(tables_world, table_id, ORDER_ROWS)
    link = tables_world.analytics("job-download-url", table_id, {"jobId": job_id}).json()["url"]

    gateway.close()
    page = tables_world.analytics("job-results", table_id, {"jobId": job_id})
    downloaded = tables_world.client.get(link)
    for answer in (page, downloaded):
        assert answer.status_code == 503, answer.text
        assert answer.headers.get("Retry-After") == str(STORAGE_RETRY_AFTER_SECONDS)
        assert answer.json() == STORAGE_503
        for internal in internals(kafka_settings, gateway.endpoint):
            assert internal not in answer.text, internal


class TestThroughARelay:
    @pytest.fixture
    def stack_endpoint(self, relay: CuttingRelay) -> str:
        return relay.endpoint

    @pytest.mark.served  # the connection's end is the thing tested: a real HTTP server
    def test_a_download_whose_store_goes_away_midway_is_cut_off(
        self, tables_world: Tables, relay: CuttingRelay, worker: S3Worker, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The ingress reads S3 through the relay; once the download's first piece (a ranged read of 256
        KiB) has come through, the relay lets 64 KiB more through and cuts S3 off. The 200 is sent by then:
        the client must see the body broken off, and the ingress must say so in its log."""
        # ~1.3 MB that Parquet cannot compress; few rows, as waiting for them reads a preview of at most 100.
        rows = [{"order_id": n, "region": os.urandom(8192).hex()} for n in range(80)]
        table_id = tables_world.create()
        job_id = succeeded_query(tables_world, table_id, rows)
        body = {"jobId": job_id, "format": "PARQUET"}
        link = tables_world.analytics("job-download-url", table_id, body).json()["url"]

        relay.cut_after(DOWNLOAD_CHUNK_BYTES + 64 * 1024)
        pieces: list[bytes] = []
        with httpx.stream("GET", link, timeout=60) as answer:
            assert answer.status_code == 200
            with pytest.raises(httpx.RemoteProtocolError):
                pieces.extend(answer.iter_bytes())
        assert DOWNLOAD_CHUNK_BYTES <= sum(map(len, pieces)) < 1_000_000
        assert "a result download broke off" in caplog.text
