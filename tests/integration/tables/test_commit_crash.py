# mypy: disable-error-code="import-untyped"
"""SIGKILL the table writer after it wrote a commit's files and before the catalog named them: no reader ever
sees a snapshot naming a missing or short file, and after a restart the write is committed exactly once.

The worker is held at that moment by ``SVC_TABLE_PAUSE_BEFORE_COMMIT_SECONDS`` (it logs "pausing before a
commit" first). A reader thread keeps loading the table the whole time and checks every data file of the
current snapshot against the size its manifest records, then counts the rows through DuckDB."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.table import Table
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.models import TableWrite
from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from tests.fixtures.processes import json_log
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.integration, pytest.mark.served]  # a reader in a thread of its own

SPEC = {"sqlName": "events", "name": "Events", "columns": [{"name": "n", "type": "LONG"}]}
ROWS = 100
PAUSED = "pausing before a commit"
READ_EVERY_SECONDS = 0.2
T = TypeVar("T")


class PausingWorker(Worker):
    """A worker that holds every table commit for two minutes once its files are written."""

    def env(self) -> dict[str, str]:
        return {**super().env(), "SVC_TABLE_PAUSE_BEFORE_COMMIT_SECONDS": "120"}


def local(location: str) -> Path:
    return Path(location.removeprefix("file://"))


def data_files(table: Table) -> dict[Path, int]:
    """Each data file the current snapshot names, with the size its manifest records."""
    head = table.current_snapshot()
    if head is None:
        return {}
    return {
        local(entry.data_file.file_path): entry.data_file.file_size_in_bytes
        for manifest in head.manifests(table.io)
        for entry in manifest.fetch_manifest_entry(table.io)
    }


@dataclass
class Reader:
    """Reads the table as a client would, over and over, and notes anything a reader must never see."""

    ingress: Ingress
    company_id: str
    table_id: str
    counts: set[int] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    reads: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def table(self) -> Table:
        return iceberg.load_table(self.ingress.app.state.catalog, self.company_id, self.table_id)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.read_once()
            except Exception as error:  # any failure to read is what the test looks for
                self.problems.append(f"{type(error).__name__}: {error}")
            # A snapshot naming a missing or short file stays so until the next commit, so a few reads a
            # second see it; each read costs tens of milliseconds of CPU (catalog, manifests, DuckDB).
            self.stop.wait(READ_EVERY_SECONDS)

    def read_once(self) -> None:
        table = self.table()
        for path, size in data_files(table).items():
            if not path.exists():
                self.problems.append(f"missing data file {path.name}")
            elif path.stat().st_size != size:
                self.problems.append(f"{path.name} holds {path.stat().st_size} bytes, not {size}")
        if table.current_snapshot() is not None:
            with connect() as duck:
                found = duck.execute("SELECT count(*) FROM iceberg_scan(?)", [table.metadata_location])
                self.counts.add(int(found.fetchone()[0]))  # type: ignore[index]
        self.reads += 1


def wait_for(check: Callable[[], T | None], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def append(world: Tables, table_id: str, first: int) -> None:
    rows = [{"n": first + i} for i in range(ROWS)]
    answer = world.analytics("append-rows", table_id, {"rows": rows})
    assert answer.status_code == 200 and answer.json()["accepted"] == ROWS, answer.text


def in_flight(db: Db, table_id: str) -> int:
    """The table's accepted writes not yet committed (PENDING or WRITING)."""
    with db.sessions() as session:
        return len(
            session.scalars(
                select(TableWrite.id).where(
                    TableWrite.table_id == table_id, TableWrite.status.in_(("PENDING", "WRITING"))
                )
            ).all()
        )


def stored(reader: Reader) -> list[int]:
    table = reader.table()
    with connect() as duck:
        return sorted(
            int(row[0])
            for row in duck.execute("SELECT n FROM iceberg_scan(?)", [table.metadata_location]).fetchall()
        )


def test_a_writer_killed_between_its_files_and_its_commit(
    tables_world: Tables, ingress: Ingress, ingress_db: Db, kafka_settings: Settings, tmp_path: Path
) -> None:
    table_id = tables_world.create(SPEC)
    reader = Reader(ingress, tables_world.company_id, table_id)
    # A first snapshot, so that readers have files to check while the writer is held and killed.
    seed = pa.table({"n": pa.array(range(ROWS), pa.int64())})
    writer.append(reader.table(), [(uuid.uuid4().hex, seed)])
    committed = data_files(reader.table())
    assert len(committed) == 1
    thread = threading.Thread(target=reader.run, daemon=True)

    paused = PausingWorker(kafka_settings, tmp_path / "paused.log")
    paused.start()
    # From before the append on: nothing writes the table while the worker starts, and the reads would only
    # slow its start (the first in a test process imports everything a worker needs).
    thread.start()
    try:
        append(tables_world, table_id, ROWS)
        wait_for(
            lambda: any(entry.get("msg") == PAUSED for entry in json_log(paused.log_path)),
            60,
            "the worker to pause before its commit",
        )
        # The commit's data file is whole on disk, and no snapshot names it yet.
        table = reader.table()
        assert data_files(table) == committed
        folder = local(table.location()) / "data"
        written = [path for path in folder.rglob("*.parquet") if path not in committed]
        assert len(written) == 1, written
        assert pq.ParquetFile(written[0]).metadata.num_rows == ROWS
    finally:
        paused.kill()

    restarted = Worker(kafka_settings, tmp_path / "worker.log")
    restarted.start()
    try:
        # Read through DuckDB only once the database says nothing is in flight (a cheap look) instead of on
        # every poll.
        wait_for(
            lambda: not in_flight(ingress_db, table_id) and len(stored(reader)) >= 2 * ROWS,
            120,
            "the write to be committed after the restart",
        )
        wait_for(lambda: not in_flight(ingress_db, table_id), 30, "the table's writes to settle")
        time.sleep(1.0)  # one more commit interval: a second commit of the write would land meanwhile
    finally:
        restarted.stop()
    reader.stop.set()
    thread.join(timeout=30)

    assert stored(reader) == list(range(2 * ROWS)), "the write was lost or committed twice"
    assert reader.reads > 10 and not reader.problems, reader.problems[:5]
    assert reader.counts <= {ROWS, 2 * ROWS}, reader.counts
    # The killed attempt's file is left behind, named by no snapshot (orphan removal's work).
    final = data_files(reader.table())
    assert written[0] not in final and written[0].exists()
