"""The metadata database goes away while a scheduled run's svcdb operation waits for its table's writer: a
real PostgreSQL 18 of this module's own, stopped and started again (as in ``test_db_outage.py``).

The run waits for the database as a webhook delivery's svcdb operation does (both make the one handler call
of ``streams/handler_call.py``), instead of ending FAILED with an internal error, and succeeds once the
database is back and the writer commits."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from schemas.deliveries import HandlerOutcome
from schemas.scheduled.events import RunStatus
from schemas.settings import Settings
from sinks.db.analytics import tables
from sinks.db.scheduled.runs import RunWork
from streams.analytics.tables import TableWriter
from streams.scheduled.actions import act
from streams.scheduled.scheduler import SchedulerRuntime
from tests.fixtures.tables import Tables
from tests.integration.outage_helpers import Postgres, module_postgres, settings_on
from tests.integration.scheduled.test_actions import TEXT, TICKETS

pytestmark = pytest.mark.integration

PASSWORD = f"pw-{uuid.uuid4().hex}"
# How long the run waits for the database before it comes back: long enough for several tries.
WAITED_SECONDS = 3.0


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[Postgres]:
    yield from module_postgres()


@pytest.fixture
def kafka_settings(postgres_server: Postgres, kafka_bootstrap: str, tmp_path: Path) -> Settings:
    """Replaces the stack's settings: the ingress and the tables world on a database of this server."""
    return settings_on(postgres_server, kafka_bootstrap, tmp_path, PASSWORD)


def test_a_scheduled_svcdb_action_waits_out_an_outage_as_a_delivery_does(
    tables_world: Tables, kafka_settings: Settings, postgres_server: Postgres
) -> None:
    table_id = tables_world.create(TICKETS)
    moment = datetime.now(UTC)
    work = RunWork(
        run_id=uuid.uuid4().hex,
        event_id=uuid.uuid4().hex,
        company_id=tables_world.company_id,
        owner_id=tables_world.member_id,
        scheduled_for=moment,
        attempt=1,
        action_type="UPDATE_SVCDB",
        config={
            "operation": "INSERT",
            "targetTableId": table_id,
            "values": {"ticket": {**TEXT, "textValue": "T-1"}, "status": {**TEXT, "textValue": "open"}},
        },
        started_at=moment,
    )
    status, outcome = asyncio.run(_act_through_outage(kafka_settings, postgres_server, work, table_id))
    assert (status, outcome.ok, outcome.error) == (RunStatus.SUCCEEDED, True, None), outcome
    (row,) = tables_world.wait_rows(table_id, 1)
    assert (row["ticket"], row["status"]) == ("T-1", "open")


async def _act_through_outage(
    settings: Settings, server: Postgres, work: RunWork, table_id: str
) -> tuple[RunStatus, HandlerOutcome]:
    """Run the action until its write is queued, stop the database while the action waits for the write's
    outcome, start it again once the action has waited, then let the table's writer commit the write."""
    runtime = SchedulerRuntime(settings)
    writer = TableWriter(settings)
    await runtime.start()
    await writer.start()
    down = False
    try:
        acting = asyncio.ensure_future(act(runtime, work))
        while not await asyncio.to_thread(_queued, runtime, work.run_id):
            assert not acting.done(), acting.result()
            await asyncio.sleep(0.05)
        await asyncio.to_thread(server.stop)
        down = True
        while runtime.outages.lag() < WAITED_SECONDS:
            if acting.done():
                failed = acting.exception() or acting.result()
                raise AssertionError(f"the action did not wait for the database: {failed!r}")
            await asyncio.sleep(0.1)
        await asyncio.to_thread(server.start)
        down = False
        await writer.commit({table_id: [work.run_id]})
        return await asyncio.wait_for(acting, timeout=60)
    finally:
        if down:  # the next tests need it
            await asyncio.to_thread(server.start)
        await writer.stop()
        await runtime.stop()


def _queued(runtime: SchedulerRuntime, write_id: str) -> bool:
    with runtime.sessions() as session:
        return tables.write_state(session, write_id) is not None
