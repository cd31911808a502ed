"""An S3 endpoint that swallows calls, made here on a loopback port: one that takes no connection (a listener
with a backlog of 0 whose queue one connection already fills, so new SYNs go unanswered) and one that takes
connections and never sends a byte. Every S3 client of the service gives up on it within the S3 limits
(connect 0.5 s, read 1 s, 2 attempts here) and says the storage is unavailable: the object store, the bucket
check of start-up, the warehouse's FileIO and DuckDB's httpfs, and through the ingress a 503 with Retry-After.

The pytest timeout (60 s) is the proof that nothing waits for botocore's own 60 s, six times over."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from pyiceberg.io.pyarrow import PyArrowFileIO
from sqlalchemy import func, select

from ingress.errors import STORAGE_RETRY_AFTER_SECONDS
from schemas.settings import Settings
from sinks.db.models import Upload
from sinks.duckdb_engine import connect, s3_access_for
from sinks.iceberg.catalog import storage_properties
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.storage import table_storage
from sinks.objectstore import BucketUnavailable, ensure_buckets, object_store
from tests.fixtures.stack import Db, Ingress, make_settings, migrated

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

LIMITS = {"s3_connect_timeout_seconds": 0.5, "s3_read_timeout_seconds": 1.0, "s3_max_attempts": 2}
UNREACHABLE = "the S3 service could not be reached"
NO_ANSWER = "the S3 service did not answer in time"


@dataclass(frozen=True)
class Hole:
    endpoint: str
    reason: str  # what the service says of it
    connections: Callable[[], int] = lambda: 0  # connections it has taken (the silent one counts them)


@contextmanager
def no_connection() -> Iterator[Hole]:
    """A listener that never accepts, its queue (backlog 0) full with one connection: SYNs go unanswered."""
    with closing(socket.socket()) as listener, closing(socket.socket()) as filler:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        filler.connect(listener.getsockname())
        yield Hole(f"http://127.0.0.1:{listener.getsockname()[1]}", UNREACHABLE)


@contextmanager
def no_answer() -> Iterator[Hole]:
    """A listener that accepts every connection and never sends a byte on any."""
    stop = threading.Event()
    held: list[socket.socket] = []
    with closing(socket.socket()) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.settimeout(0.1)

        def hold() -> None:
            while not stop.is_set():
                try:
                    held.append(listener.accept()[0])
                except TimeoutError:
                    continue

        holder = threading.Thread(target=hold, name="s3-blackhole", daemon=True)
        holder.start()
        try:
            yield Hole(f"http://127.0.0.1:{listener.getsockname()[1]}", NO_ANSWER, lambda: len(held))
        finally:
            stop.set()
            holder.join(timeout=5)
            for connection in held:
                connection.close()


@pytest.fixture
def aws_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "test-key"),
        ("AWS_SECRET_ACCESS_KEY", "blackhole-test-secret"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_EC2_METADATA_DISABLED", "true"),
    ):
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(params=["no connection", "no answer"])
def hole(request: pytest.FixtureRequest, aws_key: None) -> Iterator[Hole]:
    with no_connection() if request.param == "no connection" else no_answer() as made:
        yield made


def on_hole(tmp_path: Path, hole: Hole, **more: object) -> Settings:
    return Settings(data_dir=tmp_path, s3_endpoint=hole.endpoint, **LIMITS, **more)  # type: ignore[arg-type]


def test_the_object_store_gives_up_and_says_the_storage_is_unavailable(tmp_path: Path, hole: Hole) -> None:
    store = object_store(on_hole(tmp_path, hole, object_store="s3://svc-objects/svc"))
    expected = f"The object storage is unavailable: {hole.reason}"
    for call in (
        lambda: store.put_bytes("results/c/j.parquet", b"rows"),
        lambda: store.get_bytes("results/c/j.parquet"),
        lambda: store.exists("results/c/j.parquet"),
        lambda: store.initiate_multipart("uploads/c/u/orders.csv"),
    ):
        with pytest.raises(StorageUnavailable) as raised:
            call()
        assert str(raised.value) == expected
        assert hole.endpoint.removeprefix("http://") not in str(raised.value)


def test_the_bucket_check_at_start_up_gives_up(tmp_path: Path, hole: Hole) -> None:
    settings = on_hole(tmp_path, hole, object_store="s3://svc-objects/svc")
    with pytest.raises(BucketUnavailable, match="could not be reached to check bucket svc-objects"):
        ensure_buckets(settings)


def test_the_warehouse_file_io_gives_up(tmp_path: Path, hole: Hole) -> None:
    properties = storage_properties(on_hole(tmp_path, hole, warehouse="s3://svc-lake/lake"))
    metadata = PyArrowFileIO(properties).new_input("s3://svc-lake/lake/c_x/t_y/metadata/00001.metadata.json")
    reason = f"^The table storage is unavailable: {UNREACHABLE}$"  # pyarrow's NETWORK_CONNECTION, both holes
    with pytest.raises(StorageUnavailable, match=reason), table_storage():
        metadata.open()


def test_duckdb_gives_up_on_the_warehouse(tmp_path: Path, hole: Hole) -> None:
    """DuckDB's own default (30 s, 3 retries) would outlast the test's timeout."""
    warehouse = "s3://svc-lake/lake"
    access = s3_access_for(warehouse, storage_properties(on_hole(tmp_path, hole, warehouse=warehouse)))
    query = f"SELECT count(*) FROM read_parquet('{warehouse}/c_x/t_y/data/f.parquet')"  # noqa: S608 - constants
    with (
        connect(threads=1, memory_limit="64MB", s3=access) as connection,
        pytest.raises(duckdb.IOException, match="Timeout was reached"),
    ):
        connection.execute(query)


# Through the ingress: the object store of the whole stack is the blackhole.


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, hole: Hole) -> Settings:
    return make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        object_store="s3://svc-objects/svc",
        s3_endpoint=hole.endpoint,
        **LIMITS,
    )


def test_a_multipart_upload_started_while_s3_swallows_calls_is_503_and_records_nothing(
    ingress: Ingress, ingress_db: Db, hole: Hole
) -> None:
    company = ingress_db.create_company()
    answer = ingress.client.post(
        "/clients/svcdb-intake/multipart-initiate",
        headers={"Authorization": company.client_api_key},
        json={"fileName": "orders.csv"},
    )
    assert answer.status_code == 503, answer.text
    assert answer.headers.get("Retry-After") == str(STORAGE_RETRY_AFTER_SECONDS)
    assert answer.json() == {"errors": [f"The object storage is unavailable: {hole.reason}"]}
    with ingress_db.sessions() as session:
        count = session.scalar(select(func.count()).where(Upload.company_id == company.company_id))
    assert count == 0  # nothing counts against the company's open uploads


def test_a_silent_s3_holds_no_database_lock_while_an_upload_starts(
    tmp_path: Path, kafka_bootstrap: str, aws_key: None
) -> None:
    """While one company's multipart-initiate waits on a silent S3 (2 attempts of 5 s here), another
    company's write to the metadata database goes through: the store is not called under the company's
    lock, which on SQLite is the database's one write lock."""
    with no_answer() as hole:
        settings = make_settings(
            tmp_path / "data",
            kafka_bootstrap=kafka_bootstrap,
            object_store="s3://svc-objects/svc",
            s3_endpoint=hole.endpoint,
            s3_connect_timeout_seconds=0.5,
            s3_read_timeout_seconds=5.0,
            s3_max_attempts=2,
        )
        with migrated(settings) as db:
            waiting = db.create_company("Waits")
            ingress = Ingress(settings)
            ingress.start()
            try:
                answers: list[int] = []
                started = threading.Thread(
                    target=lambda: answers.append(
                        ingress.client.post(
                            "/clients/svcdb-intake/multipart-initiate",
                            headers={"Authorization": waiting.client_api_key},
                            json={"fileName": "orders.csv"},
                        ).status_code
                    ),
                    daemon=True,
                )
                started.start()
                deadline = time.monotonic() + 10
                while hole.connections() == 0:
                    assert time.monotonic() < deadline, "the upload never reached the store"
                    time.sleep(0.05)
                db.create_company("Other", "admin@other.test")  # a write of its own, in its own transaction
                assert started.is_alive(), "the upload's answer came before the other company's write"
                started.join(timeout=30)
                assert answers == [503]
            finally:
                ingress.stop()
