"""The analytics area of the worker: run query and load jobs.

The ingress checks and plans a query, records the job QUEUED and sends its id to ``analytics.jobs``. Here a
job is claimed (QUEUED → RUNNING, compare-and-set), run by DuckDB in a worker thread over the tables'
current snapshots, its result written as Parquet to the object store batch by batch as DuckDB produces
it (never held whole; cut off at the plan's row and result-byte limits, the job then truncated), and
finished once. While it runs a watcher refreshes its heartbeat, stops it when it is cancelled (the ingress
marks it CANCELLED at once) or reaches its time limit (TIMED_OUT). A job whose worker dies is handed out
again by the reconciler.

A LOAD job reads its uploaded files, converts them to the table's columns and commits them in one Iceberg
transaction, exactly once per job id (``sinks/loads``), so running it again after a crash adds nothing twice.

A job whose run finds the storage full (a result file, the warehouse, the metadata database) is not FAILED: it
stays RUNNING, its heartbeat kept, and runs again after a growing pause until there is room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import faust
from duckdb import DuckDBPyConnection

from schemas.jobs import JobKind, JobState, LoadPlan, QueryPlan
from schemas.records import AnalyticsJobRef, GenerationMarker, UnknownRecord, decode
from schemas.settings import Settings
from schemas.topics import ANALYTICS_JOBS
from sinks.db.analytics import jobs, tables
from sinks.db.analytics.jobs import Outcome
from sinks.db.availability import Backoff, describe
from sinks.db.models import Job
from sinks.duckdb_engine import s3_access_for
from sinks.embedded_broker.fetch_wait import FetchWait
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.masking import Masker
from sinks.iceberg.read_cache import TableReads
from sinks.iceberg.storage import table_storage
from sinks.job_results import Written, delete_result, result_key
from sinks.loads.exceptions import LoadFileError, LoadMappingError
from sinks.loads.job import LoadResult, LoadStopped, load_sources
from sinks.objectstore import object_store
from sinks.query_engine import (
    QueryEngines,
    QueryFailed,
    QueryInterrupted,
)
from sinks.query_runs import execute, succeeded
from sinks.result_orphans import sweep_orphan_results
from sinks.storage_full import full
from sinks.thread_priority import lower_this_thread
from streams.app import metrics_of, raw_topic
from streams.runtime import WorkerRuntime, survive_outage

log = logging.getLogger(__name__)
WATCH_SECONDS = 0.25
# A running job's state is read (and its heartbeat refreshed) this often: a cancel stops it within it.
CHECK_SECONDS = 1.0
SWEEP_SECONDS = 600.0
# Result files no job names are looked for hourly, not with the expiry sweep: they are rare and must be a day
# old to count, while a pass lists the store's result files (a page of them) and looks their keys up.
ORPHAN_SWEEP_SECONDS = 3600.0
# Pauses before a job that found the storage full runs again: space comes back when someone frees it, and a
# query run again reads its tables again.
SPACE_BACKOFF = Backoff(first=1.0, longest=10.0)


def now() -> datetime:
    return datetime.now(UTC)


async def _claimed(claim: asyncio.Future[Job | None]) -> Job | None:
    """The claimed job, or None when the claim failed (it was taken, ended, or the DB refused)."""
    try:
        return await claim
    except Exception:
        log.exception("claiming a query job failed")
        return None


def parse_job(raw: bytes) -> str | None:
    try:
        return decode(raw, AnalyticsJobRef).job_id
    except GenerationMarker:
        return None
    except UnknownRecord as exc:
        log.warning("skipping a job record", extra={"reason": str(exc)})
        return None


class _Gate:
    """Holds the query's thread back from writing a result until the job's claim has succeeded or failed."""

    def __init__(self) -> None:
        self._settled = threading.Event()
        self._open = False

    def settle(self, open_: bool) -> None:
        if not self._settled.is_set():
            self._open = open_
            self._settled.set()

    def wait(self) -> bool:
        self._settled.wait()
        return self._open


class AnalyticsRuntime(WorkerRuntime):
    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(settings, name="analytics-commit", **kwargs)
        self.catalog = iceberg.catalog_for(settings)
        self.store = object_store(settings)
        self.masker = Masker(settings.secret_key)
        self.reads = TableReads(self.catalog)
        warehouse = iceberg.warehouse_location(settings.resolved_warehouse)
        self.engines = QueryEngines(
            warehouse,
            threads=settings.query_threads,
            memory_limit=settings.query_memory_limit,
            s3=s3_access_for(warehouse, self.catalog.properties),
            spill_root=settings.data_dir,
            max_spill_bytes=settings.query_max_temp_bytes,
            niceness=settings.query_niceness,
        )
        self.pool = ThreadPoolExecutor(
            settings.query_concurrency,
            thread_name_prefix="query",
            initializer=lower_this_thread,
            initargs=(settings.query_niceness,),
        )
        self.orphans_after: str | None = None  # the result key the next orphan sweep goes on after
        # The consumer's fetch wait, told when a query runs (its polls would compete with DuckDB's threads).
        self.fetch_wait: FetchWait | None = None

    async def on_stop(self) -> None:
        await super().on_stop()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.engines.close()

    async def start_jobs(self, job_ids: list[str]) -> None:
        await self.ready.wait()
        for job_id in job_ids:
            # Waits out an unreachable database: raised here, the error would end the agent and the worker.
            job = await self.until_db(partial(asyncio.to_thread, self._queued_job, job_id), "job lookup")
            if job is None:
                continue
            claim = asyncio.ensure_future(self.committer.run(partial(jobs.claim, job_id=job_id, now=now())))
            task = asyncio.create_task(self._run(job, claim))
            self.running.add(task)
            task.add_done_callback(self.running.discard)

    def _queued_job(self, job_id: str) -> Job | None:
        with self.sessions() as session:
            job = session.get(Job, job_id)
            if job is None or job.state != JobState.QUEUED.value:
                return None
            session.expunge(job)
            return job

    async def _run(self, job: Job, claim: asyncio.Future[Job | None]) -> None:
        """Run a job once ``claim`` (QUEUED → RUNNING) succeeds. A query starts while its claim commits and
        its result is written only once the claim has succeeded; a load starts after it. A run that found
        the storage full is run again after a pause, the job RUNNING meanwhile: never FAILED for the disk."""
        outcome: Outcome | None
        failures = 0
        while True:
            try:
                outcome = await self._attempt(job, claim)
            except Exception as exc:
                if not full(exc):
                    log.exception("query job crashed", extra={"job_id": job.id})
                    outcome = Outcome(
                        JobState.FAILED,
                        error_code="INTERNAL",
                        error_message=f"Internal error: {type(exc).__name__}",
                        error_hint="Retry the query",
                    )
                    break
                failures += 1
                log.warning(
                    "storage full; the job waits to run again",
                    extra={"job_id": job.id, "failures": failures, "error": describe(exc)},
                )
                if not await self._pause_running(job.id, SPACE_BACKOFF.pause(failures)):
                    return  # cancelled meanwhile, or the worker stops: the reconciler hands it out again
                continue
            break
        if outcome is None or await _claimed(claim) is None:
            return  # someone else holds the job, or it ended while queued
        finished = await self.committer.run(partial(jobs.finish, job_id=job.id, outcome=outcome, now=now()))
        if finished:
            self.metrics.job_ended(job.kind, outcome.state.value)
        if not finished and outcome.result_key:
            # Cancelled while its result was being written: the result is nobody's.
            await asyncio.to_thread(delete_result, self.store, outcome.result_key)
        log.info("query job ended", extra={"job_id": job.id, "state": outcome.state.value})

    async def _attempt(self, job: Job, claim: asyncio.Future[Job | None]) -> Outcome | None:
        if job.kind == JobKind.LOAD.value:
            return await self._load(job) if await claim is not None else None
        return await self._query(job, time.monotonic(), claim)

    async def _pause_running(self, job_id: str, seconds: float) -> bool:
        """Wait ``seconds`` with the job's heartbeat kept fresh (so no reconciler hands it out meanwhile);
        False when it stopped being RUNNING (cancelled) or the worker is stopping."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                state = await self.committer.run(partial(jobs.heartbeat, job_id=job_id, now=now()))
            except Exception as exc:  # the worker stops while the database is away: the job stays RUNNING
                log.warning(
                    "a waiting job left to the reconciler", extra={"job_id": job_id, "error": describe(exc)}
                )
                return False
            if state != JobState.RUNNING.value or self.should_stop:
                return False
            await self.sleep(min(left, CHECK_SECONDS))
        return not self.should_stop

    async def _query(self, job: Job, started: float, claim: asyncio.Future[Job | None]) -> Outcome | None:
        plan = QueryPlan.model_validate_json(job.plan_json)
        cursor = self.engines.cursor(iceberg.namespace_for(job.company_id))
        loop = asyncio.get_running_loop()
        key = result_key(job.company_id, job.id)
        claimed = _Gate()
        work = loop.run_in_executor(self.pool, self._execute, cursor, job.company_id, plan, key, claimed)
        if self.fetch_wait is not None:
            self.fetch_wait.work_started()
        try:
            if await _claimed(claim) is None:
                claimed.settle(False)
                cursor.interrupt()
                with contextlib.suppress(QueryInterrupted, QueryFailed, StorageUnavailable):
                    await work
                return None
            claimed.settle(True)
            stopped = await self._watch(job.id, work, cursor.interrupt, started + plan.timeout_seconds)
            as_planned = False
            try:
                written: Written | None
                written, as_planned = await work
            except QueryInterrupted:
                written = None
            except QueryFailed as exc:
                return Outcome(
                    JobState.FAILED, error_code="QUERY_FAILED", error_message=str(exc), error_hint=None
                )
            except StorageUnavailable as exc:
                if full(exc):
                    raise  # run again once there is room (``_run``)
                # The table's files or the result's store could not be reached; the message names neither
                # endpoint, bucket nor key (the full error is in the worker's log).
                return Outcome(
                    JobState.FAILED,
                    error_code="STORAGE_UNAVAILABLE",
                    error_message=str(exc),
                    error_hint="Run the query again once the storage is reachable",
                )
        finally:
            claimed.settle(False)  # a no-op once settled; frees the thread if the claim wait itself failed
            cursor.close()
            if self.fetch_wait is not None:
                self.fetch_wait.work_ended()
        if stopped is not None and written is not None:
            # Finished as it was stopped: the result is nobody's.
            await loop.run_in_executor(self.pool, delete_result, self.store, key)
        if stopped is JobState.TIMED_OUT:
            return Outcome(
                JobState.TIMED_OUT,
                error_code="TIMEOUT",
                error_message=f"The query ran past its time limit of {plan.timeout_seconds:g} seconds",
                error_hint="Filter on partition columns or aggregate to scan and return less",
            )
        if stopped is not None or written is None:
            return Outcome(JobState.CANCELLED)
        return succeeded(plan, key, written, cacheable=as_planned)

    def _execute(
        self, cursor: DuckDBPyConnection, company_id: str, plan: QueryPlan, key: str, claimed: _Gate
    ) -> tuple[Written, bool]:
        """Run the query and write its result once the job's claim has succeeded (``sinks/query_runs``)."""
        return execute(
            cursor,
            self.reads,
            self.store,
            company_id,
            plan,
            key,
            max_result_bytes=self.settings.query_max_result_bytes,
            may_write=claimed.wait,
        )

    async def _watch(
        self, job_id: str, work: asyncio.Future[Any], interrupt: Callable[[], None], deadline: float
    ) -> JobState | None:
        """Wait for the query; interrupt it when it is cancelled or reaches its deadline. DuckDB drops an
        interrupt that comes while no statement runs (the run still reading its tables' metadata), so a stop
        is repeated until the run ends, the heartbeat kept meanwhile: a stopped run is never taken for
        lost."""
        last_beat = time.monotonic()
        stopped: JobState | None = None
        while True:
            done, _ = await asyncio.wait({work}, timeout=WATCH_SECONDS)
            if done:
                return stopped
            moment = time.monotonic()
            if stopped is None and moment >= deadline:
                stopped = JobState.TIMED_OUT
            if stopped is not None:
                interrupt()
            if moment - last_beat >= CHECK_SECONDS:
                last_beat = moment
                state = await self.committer.run(partial(jobs.heartbeat, job_id=job_id, now=now()))
                if stopped is None and state != JobState.RUNNING.value:
                    stopped = JobState.CANCELLED
                    interrupt()

    async def _load(self, job: Job) -> Outcome:

        plan = LoadPlan.model_validate_json(job.plan_json)
        stop = threading.Event()
        work = asyncio.get_running_loop().run_in_executor(self.pool, self._run_load, job, plan, stop)
        await self._watch(job.id, work, stop.set, math.inf)
        try:
            result = await work
        except LoadStopped:
            return Outcome(JobState.CANCELLED)
        except LoadFileError as exc:
            return Outcome(
                JobState.FAILED,
                error_code="LOAD_FAILED",
                error_message=str(exc),
                error_hint="Nothing was loaded; fix or re-upload the file and load again",
            )
        except LoadMappingError as exc:
            return Outcome(
                JobState.FAILED,
                error_code="INVALID_SCHEMA",
                error_message=str(exc),
                error_hint="Nothing was loaded; name the file columns in columnMapping",
            )
        except StorageUnavailable as exc:
            if full(exc):
                raise  # nothing was committed; run again once there is room (``_run``)
            return Outcome(
                JobState.FAILED,
                error_code="STORAGE_UNAVAILABLE",
                error_message=str(exc),
                error_hint="Nothing was loaded; load again once the storage is reachable",
            )
        notes = json.loads(job.notes_json) if job.notes_json else []
        for uri, names in result.unused_columns.items():
            notes.append(f"{uri}: file columns not loaded (no table column): {', '.join(names)}")
        await self.committer.run(partial(tables.touch_load, table_id=job.table_id, now=now()))
        return Outcome(
            JobState.SUCCEEDED,
            row_count=result.rows_loaded,
            rows_loaded=result.rows_loaded,
            rows_rejected=result.rows_rejected,
            rejected_sample=[asdict(entry) for entry in result.sample],
            notes=notes,
        )

    def _run_load(self, job: Job, plan: LoadPlan, stop: threading.Event) -> LoadResult:

        with table_storage():
            handle = iceberg.load_table(self.catalog, job.company_id, job.table_id)
            columns = iceberg.table_columns(handle)
            encrypt = self.masker.encryptor(job.company_id)
            return load_sources(self.store, handle, plan, job.id, columns, encrypt, stop)

    async def reconcile(self) -> None:
        await self.ready.wait()
        moment = now()
        grace = self.settings.queued_grace_at(moment)
        # A heartbeat that waited for the database (down, or full) is late, not lost: the wait is allowed for.
        waited = self.outages.lag()
        running_grace = timedelta(
            seconds=CHECK_SECONDS * 10 + self.settings.processing_grace_seconds + waited
        )
        again = await self.committer.run(
            partial(jobs.lost, now=moment, queued_grace=grace, running_grace=running_grace)
        )
        if again:
            log.warning("re-sending query jobs", extra={"count": len(again)})
        for job_id in again:
            await self.publish(job_id)

    async def publish(self, job_id: str) -> None:
        await self.publisher.publish_record(AnalyticsJobRef(job_id=job_id), key=job_id)

    async def sweep_results(self) -> None:
        await self.ready.wait()
        expired = await self.committer.run(partial(jobs.expired_results, now=now()))
        for job_id, key in expired:
            await asyncio.to_thread(delete_result, self.store, key)
            await self.committer.run(partial(jobs.forget_result, job_id=job_id))

    async def sweep_orphans(self) -> None:
        await self.ready.wait()
        swept = await asyncio.to_thread(
            sweep_orphan_results, self.sessions, self.store, now=now(), start_after=self.orphans_after
        )
        self.orphans_after = swept.resume_after


def register(app: faust.App, settings: Settings) -> None:
    runtime = AnalyticsRuntime(settings, metrics=metrics_of(app))
    runtime.fetch_wait = getattr(app, "svc_fetch_wait", None)
    app.service(runtime)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.agent(raw_topic(app, settings, ANALYTICS_JOBS), name="run_query_jobs")
    async def run_query_jobs(stream: faust.StreamT[bytes]) -> None:
        async for raw in stream:
            job_id = parse_job(raw)
            if job_id is not None:
                await runtime.start_jobs([job_id])

    @app.timer(interval=settings.reconcile_interval_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def reconcile_query_jobs() -> None:
        await survive_outage(runtime.reconcile, "reconcile query jobs")

    @app.timer(interval=SWEEP_SECONDS, on_leader=True)  # type: ignore[untyped-decorator]
    async def sweep_query_results() -> None:
        await runtime.sweep_results()

    @app.timer(interval=ORPHAN_SWEEP_SECONDS, on_leader=True)  # type: ignore[untyped-decorator]
    async def sweep_orphan_query_results() -> None:
        try:
            await runtime.sweep_orphans()
        except Exception:
            log.exception("the orphan result sweep failed; the next one tries again")
