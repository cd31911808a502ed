"""The metadata database goes away and comes back under the analytics area: a real PostgreSQL 18 of this
module's own, stopped and started again (as in ``test_db_outage.py``).

A LOAD job's record that reaches the worker while the database is away waits for it, then runs; the
Iceberg catalog (pyiceberg's SQL catalog in the same database) answers the first call after a restart; and
``/readyz`` says when to ask again."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingress.errors import DATABASE_RETRY_AFTER_SECONDS
from schemas.settings import Settings
from sinks.db.models import Job
from streams.analytics.jobs import AnalyticsRuntime
from tests.fixtures.tables import Tables
from tests.integration.analytics.test_loads import HEADER, csv_rows, load, upload
from tests.integration.outage_helpers import (
    Postgres,
    check_refusal,
    module_postgres,
    settings_on,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.served]  # files are uploaded to signed links over HTTP

PASSWORD = f"pw-{uuid.uuid4().hex}"
ROWS = 40
# How long the job's record waits for the database before it comes back: long enough for several tries.
WAITED_SECONDS = 3.0


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[Postgres]:
    yield from module_postgres()


@pytest.fixture
def kafka_settings(postgres_server: Postgres, kafka_bootstrap: str, tmp_path: Path) -> Settings:
    """Replaces the stack's settings: the ingress and the tables world on a database of this server."""
    return settings_on(postgres_server, kafka_bootstrap, tmp_path, PASSWORD)


def test_a_job_record_that_arrives_during_an_outage_waits_and_then_runs(
    tables_world: Tables, kafka_settings: Settings, postgres_server: Postgres
) -> None:
    table_id = tables_world.create()
    uri = upload(tables_world, "orders.csv", (HEADER + csv_rows(1, ROWS)).encode())
    job_id = load(tables_world, table_id, {"sourceUris": [uri]})["jobId"]  # QUEUED: no worker runs here
    state, rows_loaded, error = asyncio.run(_start_during_outage(kafka_settings, postgres_server, job_id))
    assert (state, rows_loaded, error) == ("SUCCEEDED", ROWS, None)


async def _start_during_outage(
    settings: Settings, server: Postgres, job_id: str
) -> tuple[str, int | None, str | None]:
    """Hand the job's record to a worker's analytics area while the database is stopped, start the database
    again once the record has waited, and let the job run: its state, rows loaded and error code."""
    runtime = AnalyticsRuntime(settings)
    await runtime.start()
    down = False
    try:
        await asyncio.to_thread(server.stop)
        down = True
        starting = asyncio.ensure_future(runtime.start_jobs([job_id]))
        while runtime.outages.lag() < WAITED_SECONDS:
            if starting.done():  # a raise here ends the agent, and with it the worker process
                raise AssertionError(f"the record was not kept waiting: {starting.exception()!r}")
            await asyncio.sleep(0.1)
        await asyncio.to_thread(server.start)
        down = False
        await asyncio.wait_for(starting, timeout=30)
        await asyncio.wait_for(asyncio.gather(*list(runtime.running)), timeout=120)
        with runtime.sessions() as session:
            job = session.get(Job, job_id)
            assert job is not None
            return job.state, job.rows_loaded, job.error_code
    finally:
        if down:  # the next tests need it
            await asyncio.to_thread(server.start)
        await runtime.stop()


def test_the_catalog_answers_the_first_call_after_a_restart(
    tables_world: Tables, postgres_server: Postgres
) -> None:
    """The ingress's catalog pool holds connections the restart closed: the first table change still works."""
    table_id = tables_world.create()
    postgres_server.restart()
    added = tables_world.admin(
        "add-column", {"tableId": table_id, "column": {"name": "note", "type": "STRING"}}
    )
    assert added.status_code == 200, added.text
    described = tables_world.analytics("describe", table_id, {})
    assert described.status_code == 200, described.text
    assert "note" in {column["name"] for column in described.json()["tables"][0]["columns"]}


def test_readyz_says_when_to_ask_again(tables_world: Tables, postgres_server: Postgres) -> None:
    client = tables_world.client
    ready = client.get("/readyz")
    assert ready.status_code == 200 and "Retry-After" not in ready.headers, ready.text
    postgres_server.stop()
    try:
        down = client.get("/readyz")
        whoami = client.post("/clients/whoami", headers={"Authorization": tables_world.admin_client}, json={})
    finally:
        postgres_server.start()
    assert down.status_code == 503 and down.json()["checks"]["database"] == "unreachable", down.text
    assert down.headers.get("Retry-After") == str(DATABASE_RETRY_AFTER_SECONDS)
    # The same wait as the 503 any other call gets meanwhile.
    check_refusal("errors", whoami.status_code, whoami.headers.get("Retry-After"), whoami.json())
    assert whoami.headers["Retry-After"] == down.headers["Retry-After"]
    wait_until("ready again", lambda: client.get("/readyz").status_code == 200, timeout=30)
