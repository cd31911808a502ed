"""Two workers share the table writes; SIGKILL the one committing while appends stream in: the survivor takes
its partitions over and every accepted row is stored exactly once."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.models import TableWrite
from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.tables import Tables
from tests.fixtures.two_workers import (
    PostgresWorker,
    log_entries,
    postgres_settings,
    start_both,
    wait_until,
)
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.integration, pytest.mark.served]  # senders in threads of their own

TABLES, CALLS, ROWS_PER_CALL = 4, 120, 50
SPEC = {"name": "Events", "columns": [{"name": "n", "type": "LONG"}, {"name": "call", "type": "INT"}]}


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    """Several workers need PostgreSQL: this module's stack runs on it whatever SVC_TEST_DATABASE says."""
    return postgres_settings(tmp_path / "data", kafka_bootstrap)


@pytest.fixture
def workers(
    kafka_settings: Settings, ingress_db: Db, tmp_path: Path
) -> Iterator[tuple[PostgresWorker, PostgresWorker]]:
    pair = (
        PostgresWorker(kafka_settings, tmp_path / "worker-a.log", "worker-a"),
        PostgresWorker(kafka_settings, tmp_path / "worker-b.log", "worker-b"),
    )
    try:
        start_both(*pair)
        yield pair
    finally:
        for running in pair:
            running.stop()


@dataclass
class Sender:
    """Appends CALLS calls of ROWS_PER_CALL rows, round robin over the tables; every row's ``n`` is unique."""

    base_url: str
    key: str
    table_ids: list[str]
    accepted: dict[str, list[int]] = field(default_factory=dict)  # loadId -> the n of its rows
    refused: list[str] = field(default_factory=list)
    calls_done: int = 0

    def run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=30) as client:
            for call in range(CALLS):
                table_id = self.table_ids[call % len(self.table_ids)]
                rows = [{"n": call * ROWS_PER_CALL + i, "call": call} for i in range(ROWS_PER_CALL)]
                try:
                    answer = client.post(
                        "/clients/svcdb/analytics/append-rows",
                        params={"resourceId": table_id},
                        headers={"Authorization": self.key},
                        json={"tableId": table_id, "rows": rows},
                    )
                except httpx.HTTPError as exc:
                    self.refused.append(type(exc).__name__)
                else:
                    body = answer.json() if answer.status_code in (200, 202) else {}
                    if body.get("accepted") == ROWS_PER_CALL and not body.get("errors"):
                        self.accepted[body["loadId"]] = [row["n"] for row in rows]
                    else:
                        self.refused.append(f"{answer.status_code}: {answer.text[:200]}")
                self.calls_done += 1
                time.sleep(0.03)


def stored(ingress: Ingress, company_id: str, table_ids: list[str]) -> list[tuple[int, str]]:
    """(n, _load_id) of every row of the tables, read by DuckDB from their current Iceberg snapshots."""
    rows: list[tuple[int, str]] = []
    for table_id in table_ids:
        handle = iceberg.load_table(ingress.app.state.catalog, company_id, table_id)
        if handle.current_snapshot() is None:
            continue
        with connect() as duck:
            scan = duck.execute("SELECT n, _load_id FROM iceberg_scan(?)", [handle.metadata_location])
            rows += [(int(n), str(load_id)) for n, load_id in scan.fetchall()]
    return rows


def write_statuses(db: Db, table_ids: list[str]) -> Counter[str]:
    with db.sessions() as session:
        return Counter(session.scalars(select(TableWrite.status).where(TableWrite.table_id.in_(table_ids))))


def committed_rows(worker: Worker) -> Counter[str]:
    """Rows each table got from this worker's commits, as its log reports them."""
    counted: Counter[str] = Counter()
    for entry in log_entries(worker):
        if entry.get("msg") == "table commit":
            counted[entry["table_id"]] += int(entry["rows"])
    return counted


def skipped_writes(worker: Worker) -> int:
    """Writes this worker found already in Iceberg when it committed (the ledger skipped them): each commit
    logs the writes it handled and the rows it appended."""
    entries = [e for e in log_entries(worker) if e.get("msg") == "table commit"]
    return sum(int(e["writes"]) * ROWS_PER_CALL - int(e["rows"]) for e in entries) // ROWS_PER_CALL


def test_killing_one_of_two_writers_keeps_every_accepted_row_once(
    tables_world: Tables, ingress: Ingress, workers: tuple[PostgresWorker, PostgresWorker]
) -> None:
    table_ids = [tables_world.create({**SPEC, "sqlName": f"events_{i}"}) for i in range(TABLES)]
    sender = Sender(ingress.base_url, tables_world.admin_client, table_ids)
    thread = threading.Thread(target=sender.run, daemon=True)
    thread.start()
    try:
        # Kill a worker that has committed rows, a third of the way into the load.
        victim: PostgresWorker = wait_until(
            lambda: (
                sender.calls_done >= CALLS // 3
                and next((w for w in workers if sum(committed_rows(w).values()) > 0), None)
            ),
            90,
            "no worker committed rows",
        )
        survivor = next(w for w in workers if w is not victim)
        victim.kill()
        calls_at_kill, accepted_at_kill = sender.calls_done, len(sender.accepted)
        victim_rows = committed_rows(victim)
        stored_at_kill = len(stored(ingress, tables_world.company_id, table_ids))
    finally:
        thread.join(timeout=300)
    assert not thread.is_alive(), "the sender did not finish"
    assert survivor.process is not None and survivor.process.poll() is None, "the survivor died"

    expected = sorted((n, load_id) for load_id, ns in sender.accepted.items() for n in ns)

    def settled() -> bool:
        # No write left PENDING or WRITING: none will be committed (or committed again) after this.
        statuses = write_statuses(tables_world.db, table_ids)
        pending = statuses["PENDING"] + statuses["WRITING"]
        return not pending and len(stored(ingress, tables_world.company_id, table_ids)) >= len(expected)

    # The survivor takes the dead worker's partitions after the broker's session timeout, then catches up.
    wait_until(settled, 90, "the accepted writes were not all committed")
    rows = stored(ingress, tables_world.company_id, table_ids)

    twice = [row for row, count in Counter(rows).items() if count > 1]
    survivor_rows = committed_rows(survivor)
    print(
        f"appends: {TABLES} tables, {CALLS} calls of {ROWS_PER_CALL} rows; killed {victim.name} (it had "
        f"committed to {len(victim_rows)} tables) after {calls_at_kill} calls "
        f"({accepted_at_kill} accepted), {stored_at_kill} rows stored then; in all accepted "
        f"{len(sender.accepted)} calls ({len(expected)} rows), refused {len(sender.refused)}; writes "
        f"{dict(write_statuses(tables_world.db, table_ids))}; stored {len(rows)} rows, {len(twice)} twice; "
        f"rows committed by the victim {sum(victim_rows.values())} ({len(victim_rows)} tables), by the "
        f"survivor {sum(survivor_rows.values())} ({len(survivor_rows)} tables); writes the survivor found "
        f"already committed {skipped_writes(survivor)}"
    )
    assert sender.accepted, "nothing was accepted"
    assert not twice, f"{len(twice)} rows stored more than once, e.g. {twice[:5]}"
    assert sorted(rows) == expected, f"{len(rows)} rows stored for {len(expected)} accepted"
