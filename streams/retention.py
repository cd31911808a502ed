"""The retention sweep: every ``SVC_RETENTION_SWEEP_SECONDS`` the leader worker deletes what is past each
company's retention (docs/operations.md#retention).

For each record owner (a webhook, an event, a table, a company) a read says first whether anything is past
its retention, so an owner with nothing to delete costs one indexed read and no write lock. Each batch is one
small unit of the sweep's group committer, so the metadata database's write lock is never held longer than a
group commit holds it and live commits go on between two batches. A round deletes at most ``ROUND_BATCHES``
batches per owner and kind; what is left goes at the next round. Bodies stored by reference are deleted from
the object store once the rows naming them are gone.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import faust
import mode
from sqlalchemy.orm import Session

from core.retention import ENDED_UPLOAD_SECONDS, READ_CHARGE_DAYS, Cutoffs, cutoffs, of_settings
from schemas.settings import Settings
from sinks import webhook_bodies
from sinks.db import retention, space
from sinks.db.alerts import alert_retention
from sinks.db.analytics import job_retention
from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from sinks.db.scheduled import run_retention
from sinks.db.webhooks import history_retention
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.objectstore import ObjectStore, object_store
from streams.runtime import survive_outage

log = logging.getLogger(__name__)
T = TypeVar("T")
# Rows (or deliveries) per batch: a batch holds the write lock no longer than a full group commit of
# deliveries does (bench/bench_retention_sweep.py).
BATCH = 256
ROUND_BATCHES = 2_000
# Reclaim calls per round, each its own short transaction: up to about 2.5 GiB of SQLite pages a round.
RECLAIM_CALLS = 10_000


@dataclass
class Swept:
    executions: int = 0
    entries: int = 0
    payloads: int = 0
    bodies: int = 0
    runs: int = 0
    jobs: int = 0
    appends: int = 0
    uploads: int = 0
    read_charges: int = 0
    alerts: int = 0
    pages_reclaimed: int = 0
    batches: int = 0
    batch_seconds: float = 0.0  # from a batch's submission to its commit, waiting for its turn included
    longest_batch_seconds: float = 0.0

    def __bool__(self) -> bool:
        """Whether the round deleted anything."""
        return any(getattr(self, item.name) for item in fields(self) if item.name not in _TIMINGS)


_TIMINGS = frozenset(("batches", "batch_seconds", "longest_batch_seconds"))


class RetentionSweeper(mode.Service):
    """The sweep's DB engine, committer and object store, started and stopped with the Faust app."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.engine = make_engine(settings.resolved_database_url)
        self.sessions = make_sessions(self.engine)
        self.committer = GroupCommitter(self.sessions, name="retention", max_batch=1)
        self.store: ObjectStore = object_store(settings)
        self._round = Swept()

    async def on_start(self) -> None:
        self.committer.start()

    async def on_stop(self) -> None:
        self.committer.stop()
        self.engine.dispose()

    async def _read(self, read: Callable[[Session], T]) -> T:
        def run() -> T:
            with self.sessions() as session:
                return read(session)

        return await asyncio.to_thread(run)

    async def _batch(self, unit: Callable[[Session], T]) -> T:
        began = time.monotonic()
        try:
            return await self.committer.run(unit)
        finally:
            took = time.monotonic() - began
            self._round.batches += 1
            self._round.batch_seconds += took
            self._round.longest_batch_seconds = max(self._round.longest_batch_seconds, took)

    async def _drain(self, probe: Callable[[Session], bool], unit: Callable[[Session], int]) -> int:
        """Batches of ``unit`` while the last one was full, once ``probe`` found something to delete."""
        if not await self._read(probe):
            return 0
        total = 0
        for _ in range(ROUND_BATCHES):
            deleted = await self._batch(unit)
            total += deleted
            if deleted < BATCH or self.should_stop:
                break
        return total

    async def sweep_now(self) -> None:
        await self.sweep(datetime.now(UTC))

    async def sweep(self, now: datetime) -> Swept:
        """One round over every company."""
        swept = self._round = Swept()
        began = time.monotonic()
        companies = await self._read(
            lambda session: list(retention.every_company(session, of_settings(self.settings)))
        )
        for company_id, kept in companies:
            if self.should_stop:
                break
            await self._sweep_company(company_id, cutoffs(kept, now), now, swept)
        cleaned_before = now - timedelta(seconds=ENDED_UPLOAD_SECONDS)
        swept.uploads += await self._drain(
            functools.partial(job_retention.any_ended_uploads, cleaned_before=cleaned_before),
            functools.partial(job_retention.delete_ended_uploads, cleaned_before=cleaned_before, limit=BATCH),
        )
        if swept:
            swept.pages_reclaimed = await self._reclaim()
            log.info(
                "retention sweep",
                extra=vars(swept) | {"seconds": round(time.monotonic() - began, 3)},
            )
        return swept

    async def _reclaim(self) -> int:
        """Give the freed pages back to the file system, a few per transaction (SQLite; nothing elsewhere)."""
        total = 0
        for _ in range(RECLAIM_CALLS):
            pages = await self._batch(space.reclaim)
            total += pages
            if pages < space.RECLAIM_PAGES or self.should_stop:
                break
        return total

    async def _sweep_company(self, company_id: str, cut: Cutoffs, now: datetime, swept: Swept) -> None:
        partial = functools.partial
        webhooks = await self._read(lambda session: history_retention.webhooks_of(session, company_id))
        for webhook_id in webhooks:
            if await self._read(
                partial(
                    history_retention.any_expired,
                    company_id=company_id,
                    webhook_id=webhook_id,
                    cutoff=cut.history,
                )
            ):
                await self._sweep_history(company_id, webhook_id, cut.history, swept)
        events = await self._read(lambda session: run_retention.events_of(session, company_id))
        for event_id in events:
            swept.runs += await self._drain(
                partial(run_retention.any_expired, company_id=company_id, event_id=event_id, cutoff=cut.runs),
                partial(
                    run_retention.delete_expired,
                    company_id=company_id,
                    event_id=event_id,
                    cutoff=cut.runs,
                    limit=BATCH,
                ),
            )
        swept.jobs += await self._drain(
            partial(job_retention.any_jobs, company_id=company_id, cutoff=cut.jobs),
            partial(job_retention.delete_jobs, company_id=company_id, cutoff=cut.jobs, limit=BATCH),
        )
        tables = await self._read(lambda session: job_retention.tables_of(session, company_id))
        for table_id in tables:
            swept.appends += await self._drain(
                partial(job_retention.any_appends, table_id=table_id, cutoff=cut.jobs),
                partial(job_retention.delete_appends, table_id=table_id, cutoff=cut.jobs, limit=BATCH),
            )
        swept.alerts += await self._drain(
            partial(alert_retention.any_expired, company_id=company_id, cutoff=cut.history),
            partial(alert_retention.delete_expired, company_id=company_id, cutoff=cut.history, limit=BATCH),
        )
        before = now.date() - timedelta(days=READ_CHARGE_DAYS - 1)
        swept.read_charges += await self._drain(
            partial(job_retention.any_read_charges, company_id=company_id, before=before),
            partial(job_retention.delete_read_charges, company_id=company_id, before=before),
        )

    async def _sweep_history(self, company_id: str, webhook_id: str, cutoff: datetime, swept: Swept) -> None:
        for _ in range(ROUND_BATCHES):
            deleted = await self._batch(
                functools.partial(
                    history_retention.delete_expired,
                    company_id=company_id,
                    webhook_id=webhook_id,
                    cutoff=cutoff,
                    limit=BATCH,
                )
            )
            swept.executions += deleted.executions
            swept.entries += deleted.entries
            swept.payloads += deleted.payloads
            if deleted.body_keys:
                swept.bodies += await asyncio.to_thread(self._delete_bodies, deleted.body_keys)
            if deleted.executions < BATCH or self.should_stop:
                break

    def _delete_bodies(self, keys: list[str]) -> int:
        gone = 0
        for key in keys:
            try:
                webhook_bodies.delete(self.store, key)
            except StorageUnavailable:
                log.warning("an expired request body was left in the object store", extra={"key": key})
                continue
            gone += 1
        return gone


def register(app: faust.App, settings: Settings) -> None:
    sweeper = RetentionSweeper(settings)
    app.service(sweeper)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.timer(interval=settings.retention_sweep_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def sweep_past_retention() -> None:
        try:
            await survive_outage(sweeper.sweep_now, "retention sweep")
        except Exception:
            log.exception("the retention sweep failed; the next one tries again")
