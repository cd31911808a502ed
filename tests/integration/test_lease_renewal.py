"""The workers' lease renewal round, on their real runtimes and a real database: one UPDATE renews every item
the process acts on (within its cap), none is made while it acts on nothing; and a scheduled run named twice
in one claim batch (its tick re-sent, then redelivered after a rebalance) is acted on once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, select

from schemas.settings import Settings
from sinks.db.models import ScheduledEventRun, WebhookExecution
from streams.runtime import HandlerRuntime
from streams.scheduled.scheduler import SchedulerRuntime, now
from streams.webhooks.deliveries import DeliveryRuntime
from tests.fixtures.stack import Db
from tests.integration.scheduled.test_run_leases import LEASE, claimed_runs
from tests.integration.webhooks.test_delivery_leases import claimed
from tests.unit.test_scheduled_event_models import EVERY_MINUTE, NOW, add_event
from tests.unit.test_scheduled_event_models import claim as claim_fires

pytestmark = pytest.mark.integration


@contextmanager
def renewals(runtime: HandlerRuntime) -> Iterator[list[str]]:
    """The lease renewal statements the runtime's engine runs meanwhile."""
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE") and "lease_until" in statement:
            seen.append(statement)

    event.listen(runtime.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(runtime.engine, "before_cursor_execute", note)


def offline(settings: Settings) -> Settings:
    """The runtimes' producer is made but never started here: any broker address does."""
    return settings.model_copy(update={"kafka_bootstrap": "127.0.0.1:9"})


def started(runtime: HandlerRuntime) -> None:
    """The runtime's database side only (its committer), without a broker."""
    runtime.committer.start()
    runtime.ready.set()


def stopped(runtime: HandlerRuntime) -> None:
    runtime.committer.stop()
    runtime.engine.dispose()


def test_one_statement_renews_every_attempt_a_worker_acts_on(settings: Settings, db: Db) -> None:
    tasks = claimed(db, 3)

    async def scenario() -> list[list[str]]:
        runtime = DeliveryRuntime(offline(settings))
        started(runtime)
        try:
            with renewals(runtime) as idle:
                await runtime.renew_leases()
            moment = now()
            for task in tasks[:2]:
                runtime.acting.hold(task.entry_id, moment, timedelta(minutes=5))
            runtime.acting.hold(tasks[2].entry_id, moment - timedelta(minutes=6), timedelta(minutes=5))
            with renewals(runtime) as busy:
                await runtime.renew_leases()
            return [idle, busy]
        finally:
            stopped(runtime)

    idle, busy = asyncio.run(scenario())
    assert idle == [] and len(busy) == 1
    with db.sessions() as session:
        rows = session.execute(select(WebhookExecution.id, WebhookExecution.lease_until))
        leases = {entry_id: lease for entry_id, lease in rows}
    renewed = {leases[task.entry_id] for task in tasks[:2]}
    assert len(renewed) == 1 and renewed != {leases[tasks[2].entry_id]}  # the third is past its cap


def test_one_statement_renews_every_run_a_worker_acts_on(settings: Settings, db: Db) -> None:
    run_ids = claimed_runs(db, 3)

    async def scenario() -> list[list[str]]:
        runtime = SchedulerRuntime(offline(settings))
        started(runtime)
        try:
            with renewals(runtime) as idle:
                await runtime.renew_leases()
            for run_id in run_ids:
                runtime.acting.hold((run_id, 1), now(), runtime.cap)
            with renewals(runtime) as busy:
                await runtime.renew_leases()
            return [idle, busy]
        finally:
            stopped(runtime)

    idle, busy = asyncio.run(scenario())
    assert idle == [] and len(busy) == 1
    with db.sessions() as session:
        leases = set(session.scalars(select(ScheduledEventRun.lease_until)))
    (renewed,) = leases  # all three renewed together, from the claim's lease to the renewal's
    assert renewed is not None and renewed != NOW + LEASE


def test_a_run_named_twice_in_one_claim_batch_is_acted_on_once(settings: Settings, db: Db) -> None:
    add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1))
    (tick,) = claim_fires(db, NOW)

    async def scenario() -> list[Any]:
        runtime = SchedulerRuntime(offline(settings))
        started(runtime)
        try:
            return list(await asyncio.gather(*(runtime._claim(tick.run_id) for _ in range(3))))
        finally:
            stopped(runtime)

    works = asyncio.run(scenario())
    assert [work is not None for work in works] == [True, False, False]
