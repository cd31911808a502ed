"""APPEND jobs sent while no worker runs: an append queued or taken when its worker died still ends, its rows
stored once, and a queued append cancelled by its sender is never written. Kept apart from
test_append_job_status.py, whose tests share one stack: these tests start their worker only once their
appends are queued, so each has a stack of its own."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.analytics import tables
from sinks.db.models import TableWrite
from sinks.kafka_admin import ensure_topics
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.analytics.test_append_job_status import (
    append,
    ended,
    grant,
    listed,
    order_ids,
    rows_from,
    status,
)

pytestmark = pytest.mark.integration


def lost_record_worker(settings: Settings, log: Path) -> Worker:
    """A worker on topics of its own: the records the ingress produced never reach it, as when the worker
    that consumed them died before taking them. Only the leader's sweep can hand it those appends."""
    own = settings.model_copy(
        update={"topic_prefix": f"{settings.topic_prefix}lost.", "worker_id": f"{settings.worker_id}-lost"}
    )
    asyncio.run(ensure_topics(own))
    return Worker(own, log)


def test_appends_queued_or_taken_when_their_worker_dies_still_end_once(
    tables_world: Tables, kafka_settings: Settings, tmp_path: Path
) -> None:
    world = tables_world
    table_id = world.create()
    queued = append(world, table_id, rows_from(1))
    taken = append(world, table_id, rows_from(11))

    # No worker yet: both are QUEUED, and waiting for them ends with the wait.
    waited = status(world, table_id, queued, wait_ms=300).json()
    assert (waited["state"], waited["elapsedMs"], waited["finishedAt"]) == ("QUEUED", None, None)
    assert set(listed(world, table_id, state="QUEUED")) == {queued, taken}
    assert listed(world, table_id, state="RUNNING") == {}

    # A writer took the second one a minute ago and died before committing it.
    with world.db.sessions.begin() as session:
        took = tables.take_writes(session, table_id, [taken], datetime.now(UTC) - timedelta(seconds=60))
        assert [write.id for write in took] == [taken]
    running = status(world, table_id, taken).json()
    assert running["state"] == "RUNNING" and running["elapsedMs"] >= 0 and running["rowsLoaded"] is None
    assert set(listed(world, table_id, state="RUNNING")) == {taken}

    worker = lost_record_worker(kafka_settings, tmp_path / "worker.log")
    worker.start()
    try:
        for job_id in (queued, taken):
            done = ended(world, table_id, job_id)
            assert (done["state"], done["rowsLoaded"]) == ("SUCCEEDED", 4), done
    finally:
        worker.stop()
    assert order_ids(world, table_id) == [1, 2, 3, 4, 11, 12, 13, 14]
    assert set(listed(world, table_id, state="SUCCEEDED")) == {queued, taken}


def test_a_queued_append_is_cancelled_by_its_sender_and_never_written(
    tables_world: Tables, kafka_settings: Settings, tmp_path: Path
) -> None:
    world = tables_world
    table_id = world.create()
    grant(world, table_id, world.member_id)
    dropped = append(world, table_id, rows_from(1))

    other = world.analytics("cancel", table_id, {"jobId": dropped}, world.member_client)
    assert other.status_code == 403 and other.json()["errorCode"] == "FORBIDDEN", other.text
    cancelled = world.analytics("cancel", table_id, {"jobId": dropped})
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "CANCELLED", cancelled.text
    assert world.analytics("cancel", table_id, {"jobId": dropped}).json()["state"] == "CANCELLED"
    body = status(world, table_id, dropped).json()
    assert (body["state"], body["rowsLoaded"], body["error"]) == ("CANCELLED", None, None)
    assert body["finishedAt"] is not None
    with world.db.sessions() as session:
        stored = session.scalars(select(TableWrite.payload_rows).where(TableWrite.id == dropped)).one()
    assert stored is None, "a cancelled append's rows are dropped at once"

    # The worker reads the cancelled append's record before the next append's (one partition per table)
    # and skips it; the sweep never hands it out.
    worker = Worker(kafka_settings, tmp_path / "worker.log")
    worker.start()
    try:
        kept = append(world, table_id, rows_from(21))
        assert ended(world, table_id, kept)["state"] == "SUCCEEDED"
    finally:
        worker.stop()
    assert order_ids(world, table_id) == [21, 22, 23, 24]
    assert status(world, table_id, dropped).json()["state"] == "CANCELLED"
    assert listed(world, table_id, state="CANCELLED").keys() == {dropped}
