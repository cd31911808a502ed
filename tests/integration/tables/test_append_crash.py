"""SIGKILL the table writer while appends stream in: after a restart every accepted row is stored once."""

import threading
import time

import httpx
import pytest

from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from tests.fixtures.stack import Ingress
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.integration, pytest.mark.served]  # a sender in a thread of its own

CALLS, ROWS_PER_CALL = 60, 100
SPEC = {
    "sqlName": "events",
    "name": "Events",
    "columns": [{"name": "n", "type": "LONG"}, {"name": "call", "type": "INT"}],
}


def send(base_url: str, key: str, table_id: str, accepted: list[int]) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for call in range(CALLS):
            rows = [{"n": call * ROWS_PER_CALL + i, "call": call} for i in range(ROWS_PER_CALL)]
            answer = client.post(
                "/clients/svcdb/analytics/append-rows",
                params={"resourceId": table_id},
                headers={"Authorization": key},
                json={"tableId": table_id, "rows": rows},
            )
            if answer.status_code == 200 and answer.json()["accepted"] == ROWS_PER_CALL:
                accepted += [row["n"] for row in rows]
            time.sleep(0.03)


def stored(ingress: Ingress, company_id: str, table_id: str) -> list[int]:
    handle = iceberg.load_table(ingress.app.state.catalog, company_id, table_id)
    if handle.current_snapshot() is None:
        return []
    with connect() as duck:
        return [
            row[0]
            for row in duck.execute("SELECT n FROM iceberg_scan(?)", [handle.metadata_location]).fetchall()
        ]


def test_writer_crash_keeps_every_row_once(tables_world: Tables, ingress: Ingress, worker: Worker) -> None:
    table_id = tables_world.create(SPEC)
    accepted: list[int] = []
    sender = threading.Thread(
        target=send, args=(ingress.base_url, tables_world.admin_client, table_id, accepted)
    )
    sender.start()
    deadline = time.monotonic() + 60
    while not stored(ingress, tables_world.company_id, table_id) and time.monotonic() < deadline:
        time.sleep(0.1)
    worker.kill()
    time.sleep(1.0)
    worker.start()
    sender.join()
    assert len(accepted) == CALLS * ROWS_PER_CALL

    deadline = time.monotonic() + 120
    rows = stored(ingress, tables_world.company_id, table_id)
    while len(rows) < len(accepted) and time.monotonic() < deadline:
        time.sleep(0.5)
        rows = stored(ingress, tables_world.company_id, table_id)
    assert sorted(rows) == sorted(accepted), f"{len(rows)} rows stored for {len(accepted)} accepted"
