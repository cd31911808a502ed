"""Short queries answered in the ingress process while their caller waits.

A query job's trip through the broker to a worker and back (record the job, produce, fetch, claim, run,
record the outcome, poll for it) cost a trivial query some 30 ms of its 32, although DuckDB answers it in a
few. So a /query call that waits (``waitMs`` > 0) and is estimated to scan little is run here first, on the
ingress's own DuckDB databases, through the same code a worker runs (``sinks/query_runs``): the same plan
(the caller's columns, row filter and masks), the same result file, the same outcome. Its job is recorded
once, already ended, in one commit. BigQuery calls this optional job creation for short queries.

Bounds: ``SVC_QUERY_INLINE_CONCURRENCY`` queries at once per ingress process and one per company (a company
sending many queries cannot take every slot; when none is free the query goes to a worker as before), each
estimated to scan at most ``SVC_QUERY_INLINE_MAX_BYTES`` and stopped after ``SVC_QUERY_INLINE_BUDGET_MS``
(or the call's waitMs, if shorter) under ``SVC_QUERY_INLINE_MEMORY_LIMIT``. A query stopped, failed or
refused here is handed to a worker as any job: the worker records what happens to it, so a failure reads
exactly as it does for any other job. Nothing is recorded before the query has run here, so a crash of the
ingress loses nothing it acknowledged.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

from duckdb import DuckDBPyConnection
from prometheus_client import CollectorRegistry, Counter

from schemas.jobs import QueryPlan
from schemas.settings import Settings
from sinks.db.jobs import Outcome
from sinks.duckdb_engine import s3_access_for
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.read_cache import TableReads
from sinks.job_results import Written, delete_result, result_key
from sinks.objectstore import ObjectStore
from sinks.query_engine import QueryEngines
from sinks.query_runs import execute, succeeded

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ran:
    """A query run here: what its job records, and when it started and ended."""

    outcome: Outcome
    started: datetime
    finished: datetime


@dataclass
class Slots:
    """Which companies have a query running here; at most ``size`` at once, one per company."""

    size: int
    companies: set[str]

    def admits(self, company_id: str, estimated_bytes: int, max_bytes: int, wait_ms: int) -> bool:
        return (
            wait_ms > 0
            and estimated_bytes <= max_bytes
            and len(self.companies) < self.size
            and company_id not in self.companies
        )


class InlineQueries:
    def __init__(self, settings: Settings, reads: TableReads, store: ObjectStore, catalog: object) -> None:
        self._settings = settings
        self._reads = reads
        self._store = store
        self._slots = Slots(settings.query_inline_concurrency, set())
        size = max(1, settings.query_inline_concurrency)
        self._pool = ThreadPoolExecutor(size, thread_name_prefix="inline")
        warehouse = iceberg.warehouse_location(settings.resolved_warehouse)
        self._engines = QueryEngines(
            warehouse,
            threads=settings.query_threads,
            memory_limit=settings.query_inline_memory_limit,
            s3=s3_access_for(warehouse, getattr(catalog, "properties", {})),
            size=size,
            spill_root=settings.data_dir,
            max_spill_bytes=settings.query_max_temp_bytes,
        )
        self._outcomes: Counter | None = None

    def count_in(self, registry: CollectorRegistry) -> None:
        self._outcomes = Counter(
            "svc_inline_queries",
            "Queries tried in the ingress process, by outcome (answered, or handed to a worker)",
            ["outcome"],
            registry=registry,
        )

    def admits(self, company_id: str, estimated_bytes: int, wait_ms: int) -> bool:
        max_bytes = self._settings.query_inline_max_bytes
        return self._slots.admits(company_id, estimated_bytes, max_bytes, wait_ms)

    async def run(self, company_id: str, job_id: str, plan: QueryPlan, wait_ms: int) -> Ran | None:
        """The query run here, its result stored under the job's key; None when it was not (no slot, over
        its budget, failed): the caller hands the job to a worker."""
        self._slots.companies.add(company_id)
        started = datetime.now(UTC)
        try:
            outcome = await self._run(company_id, job_id, plan, wait_ms)
        finally:
            self._slots.companies.discard(company_id)
        if self._outcomes is not None:
            self._outcomes.labels("answered" if outcome else "handed_off").inc()
        return None if outcome is None else Ran(outcome, started, datetime.now(UTC))

    async def _run(self, company_id: str, job_id: str, plan: QueryPlan, wait_ms: int) -> Outcome | None:
        cursor = self._engines.cursor(iceberg.namespace_for(company_id))
        key = result_key(company_id, job_id)
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(self._pool, self._execute, cursor, company_id, plan, key)
        budget = min(self._settings.query_inline_budget_ms, wait_ms) / 1000
        stop = loop.call_later(budget, cursor.interrupt)
        try:
            written, as_planned = await asyncio.shield(work)
        except asyncio.CancelledError:  # the caller went away: stop the query, drop what it wrote anyway
            cursor.interrupt()
            work.add_done_callback(lambda done: self._discard_written(done, key))
            raise
        except Exception as exc:  # stopped at its budget, failed or refused: a worker runs it as any job
            log.info("query handed to a worker", extra={"job_id": job_id, "reason": type(exc).__name__})
            return None
        finally:
            stop.cancel()
        return succeeded(plan, key, written, cacheable=as_planned)

    def _execute(
        self, cursor: DuckDBPyConnection, company_id: str, plan: QueryPlan, key: str
    ) -> tuple[Written, bool]:
        try:
            return execute(
                cursor,
                self._reads,
                self._store,
                company_id,
                plan,
                key,
                max_result_bytes=self._settings.query_max_result_bytes,
            )
        finally:
            cursor.close()

    def _discard_written(self, done: asyncio.Future[tuple[Written, bool]], key: str) -> None:
        if not done.cancelled() and done.exception() is None:
            self.discard(key)

    def discard(self, key: str) -> None:
        """Remove a result written here that no job records (its caller left, or its job was refused)."""
        self._pool.submit(delete_result, self._store, key)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._engines.close()
