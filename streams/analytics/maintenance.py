"""The automatic table maintenance area of the worker (docs/tables.md, "Automatic maintenance").

Every ``SVC_MAINTENANCE_INTERVAL_SECONDS`` each worker (not only the leader: the lease per table spreads the
tables over the workers) takes up to ``SVC_MAINTENANCE_TABLES_PER_ROUND`` tables nobody holds, the
never-checked first, then the oldest-checked. For each it claims the table's lease
(``sinks/db/analytics/table_maintenance.py``), runs what is due (``sinks/iceberg/auto_maintenance.py``) on a
thread of its own, renews the lease meanwhile every third of ``SVC_LEASE_SECONDS``, and releases it. Tables go
one at a time, so one worker's maintenance uses at most one thread and one core. A worker that dies leaves a
lease that runs out within ``SVC_LEASE_SECONDS``; a compaction cut off by it has committed nothing, or
everything.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import faust
import mode

from core import leases
from schemas.ids import new_id
from schemas.maintenance import MaintenanceAction as Action
from schemas.settings import Settings
from sinks.db.analytics import table_maintenance as rows
from sinks.db.engine import make_engine, make_sessions
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.auto_maintenance import Outcome, limits_of, maintain_if_due
from sinks.iceberg.exceptions import TableNotFound
from sinks.iceberg.storage import table_storage
from streams.runtime import survive_outage

log = logging.getLogger(__name__)
# A maintenance that runs past this (far beyond what the per-call caps allow) stops renewing its lease, so a
# wedged thread cannot keep a table from every other worker forever.
HOLD_CAP = timedelta(minutes=30)


def holder_id() -> str:
    """This process's name on the leases it holds (workers share their Faust app id)."""
    return f"{os.getpid()}-{new_id()}"


class TableMaintainer(mode.Service):
    """The DB engine, catalog and maintenance thread of the rounds, started and stopped with the Faust app."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.engine = make_engine(settings.resolved_database_url)
        self.sessions = make_sessions(self.engine)
        self.catalog = iceberg.catalog_for(settings)
        self.limits = limits_of(settings)
        self.holder = holder_id()
        # One thread: a round maintains one table at a time, and never takes the threads the table writer
        # and the other areas commit with.
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="svc-maintenance")

    async def on_stop(self) -> None:
        # A table being maintained is finished by its thread (the interpreter waits for it at exit); the
        # tables not yet started are left for the next round.
        self.thread.shutdown(wait=False, cancel_futures=True)
        self.engine.dispose()

    def lease_until(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self.settings.lease_seconds)

    def _candidates(self) -> list[rows.Candidate]:
        with self.sessions() as session:
            return rows.candidates(session, datetime.now(UTC), self.settings.maintenance_tables_per_round)

    def _claim(self, candidate: rows.Candidate) -> rows.Claim | None:
        with self.sessions.begin() as session:
            return rows.claim(
                session, candidate, holder=self.holder, now=datetime.now(UTC), until=self.lease_until()
            )

    def _renew(self, table_id: str) -> int:
        with self.sessions.begin() as session:
            return rows.renew(session, [table_id], holder=self.holder, until=self.lease_until())

    def _record_failure(self, table_id: str, error: str) -> None:
        with self.sessions.begin() as session:
            rows.record_failure(session, table_id, error, datetime.now(UTC))

    def _release(self, table_id: str, outcome: Outcome | None) -> None:
        actions = outcome.actions if outcome is not None else ()
        with self.sessions.begin() as session:
            rows.release(
                session,
                table_id,
                holder=self.holder,
                now=datetime.now(UTC),
                compacted=Action.COMPACT in actions,
                expired=Action.EXPIRE_SNAPSHOTS in actions,
            )

    def _maintain(self, claim: rows.Claim) -> Outcome:
        with table_storage():
            table = iceberg.load_table(self.catalog, claim.company_id, claim.table_id)
            return maintain_if_due(
                table,
                self.limits,
                small_files_threshold=self.settings.compact_small_files,
                now=datetime.now(UTC),
                last_expired_at=claim.last_expired_at,
            )

    async def round(self) -> int:
        """One round; how many tables it maintained (looked at and found something due)."""
        maintained = 0
        for candidate in await asyncio.to_thread(self._candidates):
            if self.should_stop:
                break
            claim = await asyncio.to_thread(self._claim, candidate)
            if claim is None:
                continue  # another worker took it since the candidates were read
            outcome: Outcome | None = None
            try:
                outcome = await self._while_leased(claim)
            except TableNotFound:
                pass  # dropped since the candidates were read
            except Exception as exc:
                # One table's trouble (its storage failing, say) must not stop the others' maintenance.
                log.warning(
                    "table maintenance failed; the next round tries again",
                    extra={"table_id": claim.table_id, "error": type(exc).__name__},
                    exc_info=True,
                )
                try:
                    await asyncio.to_thread(
                        self._record_failure, claim.table_id, f"{type(exc).__name__}: {exc}"[:500]
                    )
                except Exception as record_error:
                    log.warning(
                        "the maintenance failure was not recorded",
                        extra={"table_id": claim.table_id, "error": type(record_error).__name__},
                    )
            finally:
                await asyncio.to_thread(self._release, claim.table_id, outcome)
            if outcome is not None and outcome.actions:
                maintained += 1
        return maintained

    async def _while_leased(self, claim: rows.Claim) -> Outcome:
        """The table maintained on the maintenance thread while this loop renews its lease."""
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        work = asyncio.wrap_future(self.thread.submit(self._maintain, claim), loop=loop)
        every = leases.renewal_interval(self.settings.lease_seconds)
        while True:
            done, _ = await asyncio.wait({work}, timeout=every)
            if done:
                break
            if time.monotonic() - started > HOLD_CAP.total_seconds():
                continue  # past the cap: the lease runs out and another worker may take the table
            try:
                await asyncio.to_thread(self._renew, claim.table_id)
            except Exception as exc:
                log.warning(
                    "renewing a maintenance lease failed",
                    extra={"table_id": claim.table_id, "error": type(exc).__name__},
                )
        outcome = work.result()
        _log_outcome(claim, outcome, time.monotonic() - started)
        return outcome


def _log_outcome(claim: rows.Claim, outcome: Outcome, seconds: float) -> None:
    if not outcome.actions:
        return
    report = outcome.report
    log.info(
        "table maintained",
        extra={
            "table_id": claim.table_id,
            "company_id": claim.company_id,
            "actions": [action.value for action in outcome.actions],
            "small_files": outcome.most_small_files,
            "files_before": report.files_before,
            "files_after": report.files_after,
            "snapshots_expired": report.snapshots_expired,
            "orphans_removed": report.orphans_removed,
            "bytes_reclaimed": report.bytes_reclaimed,
            "more_to_compact": report.more_to_compact,
            "seconds": round(seconds, 3),
        },
    )


def register(app: faust.App, settings: Settings) -> None:
    if not settings.auto_maintenance:
        return
    maintainer = TableMaintainer(settings)
    app.service(maintainer)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.timer(interval=settings.maintenance_interval_seconds)  # type: ignore[untyped-decorator]
    async def maintain_tables() -> None:
        try:
            await survive_outage(partial(_round, maintainer), "table maintenance")
        except Exception:
            log.exception("the table maintenance round failed; the next one tries again")


async def _round(maintainer: TableMaintainer) -> None:
    await maintainer.round()
