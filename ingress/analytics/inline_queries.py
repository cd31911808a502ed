"""Short queries answered in the ingress process while their caller waits.

A query job's trip through the broker to a worker and back (record the job, produce, fetch, claim, run,
record the outcome, poll for it) costs a trivial query far more than DuckDB's answer (docs/performance.md,
Query overhead). So a /query call that waits (``waitMs`` > 0) and is estimated to scan little is run here
first, on the ingress's own DuckDB databases, through the same code a worker runs (``sinks/query_runs``):
the same plan (the caller's columns, row filter and masks), the same result file, the same outcome. Its job
is recorded once, already ended, in one commit. BigQuery calls this optional job creation for short queries.

Bounds: ``SVC_QUERY_INLINE_CONCURRENCY`` queries at once per ingress process and one per company (a company
sending many queries cannot take every slot; when none is free the query goes to a worker), each estimated to
scan at most ``SVC_QUERY_INLINE_MAX_BYTES`` and stopped after ``SVC_QUERY_INLINE_BUDGET_MS`` (or the call's
waitMs, if shorter) under ``SVC_QUERY_INLINE_MEMORY_LIMIT``. A query stopped, failed or refused here is handed
to a worker as any job: the worker records what happens to it, so a failure reads exactly as it does for any
other job. A plan handed over so is sent straight to a worker when it comes again within
``HANDED_OFF_SECONDS`` (:class:`HandedOff`): a company repeating a query too heavy for the call does not
spend the budget here each time before its worker run. Nothing is recorded before the query has run here,
so a crash of the ingress loses nothing it acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pyarrow as pa
from duckdb import DuckDBPyConnection
from prometheus_client import CollectorRegistry, Counter

from core.lru import Lru
from schemas.jobs import PREVIEW_ROWS, QueryPlan
from schemas.settings import Settings
from sinks.db.analytics.jobs import Outcome
from sinks.duckdb_engine import s3_access_for
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.read_cache import TableReads
from sinks.job_results import Written, delete_result, result_key
from sinks.objectstore import ObjectStore
from sinks.query_engine import QueryEngines, QueryInterrupted
from sinks.query_runs import execute, succeeded
from sinks.thread_priority import lower_this_thread

log = logging.getLogger(__name__)
# A call that waits less than this is never run here: its budget would be shorter than the run's start.
MIN_WAIT_MS = 100
_STOP_EVERY_SECONDS = 0.05
_DATABASES = 8  # company databases kept open per process (each opening costs some 250 ms)
# How long a plan stopped at its budget (or failed) here goes straight to a worker, and how many are kept.
HANDED_OFF_SECONDS = 600.0
_HANDED_OFF_KEPT = 4096


@dataclass(frozen=True)
class Ran:
    """A query run here: what its job records, when it started and ended, and the result's first rows (its
    preview, rendered from memory rather than read back from the file)."""

    outcome: Outcome
    started: datetime
    finished: datetime
    head: pa.Table | None = None


@dataclass
class Slots:
    """Which companies have a query running here; at most ``size`` at once, one per company."""

    size: int
    companies: set[str]

    def admits(self, company_id: str, estimated_bytes: int, max_bytes: int, wait_ms: int) -> bool:
        return (
            wait_ms >= MIN_WAIT_MS
            and estimated_bytes <= max_bytes
            and len(self.companies) < self.size
            and company_id not in self.companies
        )


def plan_digest(plan_json: str) -> str:
    """The key of a job's plan (its JSON text) among the ones handed off lately."""
    return hashlib.blake2b(plan_json.encode(), digest_size=16).hexdigest()


class HandedOff:
    """The plans this process handed to a worker after running them here (stopped at the budget, or failed),
    per company, each for ``seconds`` after its hand-over; at most ``entries``, the least recently used
    forgotten first. A plan's snapshots are in it, so the same SQL over changed data is tried here again."""

    def __init__(self, seconds: float, entries: int) -> None:
        self._seconds = seconds
        self._until: Lru[tuple[str, str], float] = Lru(entries)

    def remember(self, company_id: str, digest: str, now: float) -> None:
        self._until.put((company_id, digest), now + self._seconds)

    def recent(self, company_id: str, digest: str, now: float) -> bool:
        key = (company_id, digest)
        until = self._until.get(key)
        if until is None:
            return False
        if until <= now:
            self._until.discard(key)
            return False
        return True


class _Run:
    """One run's stop: a flag the run's thread checks between its steps, and its cursor to interrupt.
    DuckDB drops an interrupt that comes while no statement runs, so a stop is repeated until the run
    ends (``_stop_after``)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._cursor: DuckDBPyConnection | None = None

    def started(self, cursor: DuckDBPyConnection) -> None:
        with self._lock:
            self._cursor = cursor

    def ended(self) -> None:
        with self._lock:
            self._cursor = None

    def interrupt(self) -> None:
        self.stop.set()
        with self._lock:
            if self._cursor is not None:
                with contextlib.suppress(Exception):  # a cursor closing at this moment
                    self._cursor.interrupt()


async def _stop_after(run: _Run, work: asyncio.Future[Any], seconds: float) -> None:
    await asyncio.sleep(seconds)
    while not work.done():
        run.interrupt()
        await asyncio.sleep(_STOP_EVERY_SECONDS)


class InlineQueries:
    def __init__(self, settings: Settings, reads: TableReads, store: ObjectStore, catalog: object) -> None:
        self._settings = settings
        self._reads = reads
        self._store = store
        self._slots = Slots(settings.query_inline_concurrency, set())
        self._handed_off = HandedOff(HANDED_OFF_SECONDS, _HANDED_OFF_KEPT)
        size = max(1, settings.query_inline_concurrency)
        self._pool = ThreadPoolExecutor(
            size,
            thread_name_prefix="inline",
            initializer=lower_this_thread,
            initargs=(settings.query_niceness,),
        )
        warehouse = iceberg.warehouse_location(settings.resolved_warehouse)
        self._engines = QueryEngines(
            warehouse,
            threads=settings.query_threads,
            memory_limit=settings.query_inline_memory_limit,
            s3=s3_access_for(warehouse, getattr(catalog, "properties", {})),
            size=_DATABASES,
            spill_root=settings.data_dir,
            max_spill_bytes=settings.query_max_temp_bytes,
            niceness=settings.query_niceness,
        )
        self._outcomes: Counter | None = None
        self._stopping: set[asyncio.Future[None]] = set()  # stops of runs whose call was cancelled

    def count_in(self, registry: CollectorRegistry) -> None:
        self._outcomes = Counter(
            "svc_inline_queries",
            "Queries tried in the ingress process, by outcome (answered, or handed to a worker)",
            ["outcome"],
            registry=registry,
        )

    def admits(self, company_id: str, estimated_bytes: int, wait_ms: int, digest: str) -> bool:
        """Whether the query (its plan's ``plan_digest``) runs here: within the slots and the scan limit,
        and not handed off lately."""
        max_bytes = self._settings.query_inline_max_bytes
        return self._slots.admits(
            company_id, estimated_bytes, max_bytes, wait_ms
        ) and not self._handed_off.recent(company_id, digest, time.monotonic())

    async def run(
        self, company_id: str, job_id: str, plan: QueryPlan, wait_ms: int, digest: str
    ) -> Ran | None:
        """The query run here, its result stored under the job's key; None when it was not (no slot, over
        its budget, failed): the caller hands the job to a worker, and the plan goes straight to one for
        a while (:class:`HandedOff`)."""
        self._slots.companies.add(company_id)
        started = datetime.now(UTC)
        try:
            ended = await self._run(company_id, job_id, plan, wait_ms)
        finally:
            self._slots.companies.discard(company_id)
        if self._outcomes is not None:
            self._outcomes.labels("answered" if ended else "handed_off").inc()
        if ended is None:
            self._handed_off.remember(company_id, digest, time.monotonic())
            return None
        outcome, head = ended
        return Ran(outcome, started, datetime.now(UTC), head)

    async def _run(
        self, company_id: str, job_id: str, plan: QueryPlan, wait_ms: int
    ) -> tuple[Outcome, pa.Table | None] | None:
        key = result_key(company_id, job_id)
        loop = asyncio.get_running_loop()
        run = _Run()
        budget = min(self._settings.query_inline_budget_ms, wait_ms) / 1000
        try:
            work = loop.run_in_executor(self._pool, self._execute, run, company_id, plan, key)
        except Exception:  # the pool is shut down (the process is stopping)
            log.warning("query handed to a worker", extra={"job_id": job_id, "reason": "no inline pool"})
            return None
        watchdog = asyncio.ensure_future(_stop_after(run, work, budget))
        try:
            written, as_planned = await asyncio.shield(work)
            return succeeded(plan, key, written, cacheable=as_planned), written.head
        except asyncio.CancelledError:  # the call was cancelled (the server stopping): stop, drop its result
            stopping = asyncio.ensure_future(_stop_after(run, work, 0.0))
            self._stopping.add(stopping)
            stopping.add_done_callback(self._stopping.discard)
            work.add_done_callback(partial(self._discard_written, key=key))
            raise
        except Exception as exc:  # stopped at its budget, failed or refused: a worker runs it as any job
            log.info("query handed to a worker", extra={"job_id": job_id, "reason": type(exc).__name__})
            return None
        finally:
            watchdog.cancel()

    def _execute(self, run: _Run, company_id: str, plan: QueryPlan, key: str) -> tuple[Written, bool]:
        """In a pool thread: the company's database is opened here (its first open loads DuckDB's
        extensions, some 250 ms that must not stall the event loop)."""
        if run.stop.is_set():
            raise QueryInterrupted("stopped before it started")
        cursor = self._engines.cursor(iceberg.namespace_for(company_id))
        run.started(cursor)
        try:
            if run.stop.is_set():
                raise QueryInterrupted("stopped before it started")
            return execute(
                cursor,
                self._reads,
                self._store,
                company_id,
                plan,
                key,
                max_result_bytes=self._settings.query_max_result_bytes,
                may_write=lambda: not run.stop.is_set(),
                head_rows=PREVIEW_ROWS,
            )
        finally:
            run.ended()
            cursor.close()

    def _discard_written(self, done: asyncio.Future[tuple[Written, bool]], *, key: str) -> None:
        if not done.cancelled() and done.exception() is None:
            self.discard(key)

    def discard(self, key: str) -> None:
        """Remove a result written here that no job records (its caller left, or its job was refused)."""
        self._pool.submit(delete_result, self._store, key)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._engines.close()
