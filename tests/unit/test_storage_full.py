"""Which errors mean "the storage is full" (each driver's own, real where it can be made without a full disk),
how the ingress answers them, when /readyz counts a refusal, and which folders it measures."""

from __future__ import annotations

import errno
import json
import sqlite3
from pathlib import Path

import duckdb
import pytest
from botocore.exceptions import ClientError
from psycopg import errors as pg_errors
from sqlalchemy import create_engine, event, text
from sqlalchemy import exc as sa_exc

from ingress.errors import (
    DATABASE_UNAVAILABLE,
    STORAGE_FULL,
    STORAGE_FULL_RETRY_AFTER_SECONDS,
    database_unavailable,
    outage_response,
)
from schemas.settings import Settings
from sinks.db.availability import DatabaseUnreachable, unreachable
from sinks.iceberg.exceptions import StorageFull, StorageUnavailable
from sinks.objectstore.s3_failures import reachable
from sinks.storage_full import Sightings, full
from sinks.storage_space import Room, local_paths, local_storage_short, room_of, short_of_room

pytestmark = pytest.mark.unit


def _sqlite_full(path: Path) -> sa_exc.DBAPIError:
    """SQLite's own SQLITE_FULL: a database capped at its current size refuses to grow."""
    engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _capped(connection: sqlite3.Connection, _record: object) -> None:
        connection.execute("PRAGMA max_page_count = 2")

    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE t (x TEXT)"))
            connection.execute(text("INSERT INTO t VALUES (:x)"), {"x": "x" * 100_000})
    except sa_exc.DBAPIError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("the insert did not fail")


def test_sqlites_full_database_is_full_and_waited_out_as_unreachable(tmp_path: Path) -> None:
    error = _sqlite_full(tmp_path / "capped.db")
    assert isinstance(error.orig, sqlite3.OperationalError)
    assert error.orig.sqlite_errorcode == sqlite3.SQLITE_FULL
    assert full(error) and full(error.orig)
    assert unreachable(error)  # the workers' waits (group commit, until_db) cover it
    assert database_unavailable(error)  # the ingress answers 503, not 500


def test_postgresqls_disk_full_is_full_and_its_other_resource_errors_are_not() -> None:
    disk_full = pg_errors.DiskFull("could not extend file: No space left on device")
    assert disk_full.sqlstate == "53100"
    wrapped = sa_exc.OperationalError("INSERT ...", {}, disk_full)
    assert full(wrapped) and unreachable(wrapped)
    assert not full(pg_errors.OutOfMemory("out of memory"))
    assert not full(pg_errors.UniqueViolation("duplicate key value"))


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EDQUOT])
def test_a_local_write_without_room_is_full(number: int) -> None:
    assert full(OSError(number, "no room", "/srv/data/objects/k"))


@pytest.mark.parametrize("number", [errno.EIO, errno.EACCES, errno.ENOENT])
def test_other_file_errors_are_not_full(number: int) -> None:
    assert not full(OSError(number, "other", "/srv/data/objects/k"))


def test_pyarrows_error_without_an_errno_is_read_by_its_text() -> None:
    assert full(OSError("IO Error: Could not write file: No space left on device"))
    assert full(OSError("Disk quota exceeded"))
    assert not full(OSError("IO Error: Connection refused"))


def test_duckdbs_io_error_for_a_full_device_is_full_but_no_query_error_is(tmp_path: Path) -> None:
    assert full(duckdb.IOException('IO Error: Could not write file "/d/x.parquet": No space left on device'))
    assert not full(duckdb.IOException("IO Error: Cannot open file: Permission denied"))
    # A value in a query's own error is the caller's data, never a sign of the disk.
    with duckdb.connect() as connection, pytest.raises(duckdb.Error) as raised:
        connection.execute("SELECT CAST('No space left on device' AS INTEGER)")
    assert not full(raised.value)


def _client_error(code: str, status: int) -> ClientError:
    response = {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}}
    return ClientError(response, "PutObject")


def test_an_s3_service_out_of_space_is_full() -> None:
    assert full(_client_error("XMinioStorageFull", 507))
    assert full(_client_error("InsufficientStorage", 507))
    assert not full(_client_error("SlowDown", 503))
    assert not full(_client_error("AccessDenied", 403))


def test_what_an_error_was_raised_from_or_while_handling_counts_unless_suppressed() -> None:
    cause = OSError(errno.ENOSPC, "No space left on device")
    assert full(StorageFull()) and isinstance(StorageFull(), StorageUnavailable)
    with pytest.raises(RuntimeError) as cleaning_up:
        _while_handling(cause, RuntimeError("the clean-up failed too"), suppress=False)
    assert full(cleaning_up.value)
    with pytest.raises(ValueError, match="unrelated") as suppressed:
        _while_handling(cause, ValueError("unrelated"), suppress=True)
    assert not full(suppressed.value)


def _while_handling(cause: Exception, error: Exception, *, suppress: bool) -> None:
    try:
        raise cause
    except OSError:
        if suppress:
            raise error from None
        raise error  # noqa: B904 - the implicit context is what is tested


def test_a_batch_failed_untried_after_a_full_database_still_reads_as_full(tmp_path: Path) -> None:
    """The ingress's group committer refuses later batches untried for a moment: raised from the first
    batch's error, the refusal still says the storage is full, not that the database is away."""
    first = _sqlite_full(tmp_path / "capped.db")
    with pytest.raises(DatabaseUnreachable) as untried:
        raise DatabaseUnreachable("the metadata database was unreachable a moment ago") from first
    assert full(untried.value)
    assert not full(DatabaseUnreachable("down a moment ago"))


@pytest.mark.parametrize(
    ("path", "shape"),
    [
        ("/clients/custom-webhooks", "trigger"),
        ("/clients/svcdb/analytics/append-rows", "analytics"),
        ("/clients/svcdb-intake/parts/token", "errors"),
    ],
)
def test_a_full_storage_answers_503_with_retry_after_in_each_areas_shape(path: str, shape: str) -> None:
    refused = outage_response(path, StorageFull("object storage"))
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == str(STORAGE_FULL_RETRY_AFTER_SECONDS)
    body = json.loads(bytes(refused.body))
    assert body["errors"] == [STORAGE_FULL]
    if shape == "trigger":
        assert body["success"] is False and body["message"] == STORAGE_FULL
        assert body["executionId"] is None and body["webhookId"] is None
    elif shape == "analytics":
        assert body["errorCode"] == "STORAGE_UNAVAILABLE" and "Nothing was changed" in body["hint"]
    else:
        assert set(body) == {"errors"}
    # An unreachable database keeps its own answer.
    away = json.loads(bytes(outage_response(path, DatabaseUnreachable("away")).body))
    assert away["errors"] == [DATABASE_UNAVAILABLE]


def test_a_sighting_counts_for_its_window_only() -> None:
    moment = [100.0]
    sightings = Sightings(5.0, clock=lambda: moment[0])
    assert not sightings.recent()
    sightings.saw()
    moment[0] += 4.9
    assert sightings.recent()
    moment[0] += 0.2
    assert not sightings.recent()


def test_short_of_room_is_under_the_floor_or_out_of_inodes() -> None:
    floor = 16 * 2**20
    assert not short_of_room(Room(free_bytes=floor, free_inodes=10), floor)
    assert short_of_room(Room(free_bytes=floor - 1, free_inodes=10), floor)
    assert short_of_room(Room(free_bytes=10 * floor, free_inodes=0), floor)
    assert not short_of_room(Room(free_bytes=0, free_inodes=1), 0)


def test_the_local_storage_is_the_data_dir_and_whatever_lies_elsewhere(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert local_paths(Settings(data_dir=data)) == [data.absolute()]
    elsewhere = Settings(
        data_dir=data,
        database_url=f"sqlite:///{tmp_path / 'db' / 'svc.db'}",
        object_store=str(tmp_path / "objects"),
        warehouse=f"file://{tmp_path / 'lake'}",
    )
    assert local_paths(elsewhere) == [
        data.absolute(),
        tmp_path / "db",
        tmp_path / "objects",
        tmp_path / "lake",
    ]
    remote = Settings(
        data_dir=data,
        database_url="postgresql://svc@db/svc",
        object_store="s3://bucket/objects",
        warehouse="s3://bucket/lake",
    )
    assert local_paths(remote) == [data.absolute()]


def test_a_folder_not_made_yet_is_measured_by_the_one_above(tmp_path: Path) -> None:
    device, room = room_of(tmp_path / "not" / "yet")
    assert device == room_of(tmp_path)[0]
    assert room.free_bytes > 0 and room.free_inodes > 0
    assert not local_storage_short(Settings(data_dir=tmp_path / "data", storage_min_free_bytes=0))
    assert local_storage_short(Settings(data_dir=tmp_path / "data", storage_min_free_bytes=1024**4))


def test_an_s3_store_out_of_space_raises_storage_full() -> None:
    @reachable
    def put() -> None:
        response = {"Error": {"Code": "XMinioStorageFull"}, "ResponseMetadata": {"HTTPStatusCode": 507}}
        raise ClientError(response, "PutObject")

    with pytest.raises(StorageFull, match=r"^The object storage is full$") as raised:
        put()
    assert isinstance(raised.value.__cause__, ClientError)
