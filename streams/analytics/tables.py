"""The table writer area of the worker: commit accepted writes into Iceberg, one ordered writer per table.

Records on ``svc.table.appends`` are keyed by table id, so one partition (one worker) owns a table's writes.
A batch taken within ``SVC_TABLE_COMMIT_INTERVAL_SECONDS`` becomes one Iceberg commit per table whose snapshot
summary lists the write ids it contains; a redelivered write is skipped by that ledger, and a write already
marked COMMITTED in the DB is never read again. Rows are durable in the DB before the caller's answer, so a
lost record only delays them until the sweeper publishes them again; so does a commit that found the storage
full.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import faust
import mode
import pyarrow as pa

from core.svcdb import SvcDbError
from schemas.column_types import ColumnDef
from schemas.records import GenerationMarker, TableWriteRef, UnknownRecord, decode
from schemas.settings import Settings
from schemas.topics import TABLE_APPENDS
from sinks import svcdb_apply
from sinks.db.analytics import tables
from sinks.db.availability import describe
from sinks.db.engine import make_engine, make_sessions
from sinks.db.models import AnalyticsTable, TableWrite
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from sinks.iceberg.convert import from_ipc, rows_to_arrow
from sinks.iceberg.masking import Masker
from sinks.kafka import Publisher
from sinks.storage_full import full
from streams.app import raw_topic
from streams.runtime import survive_outage

log = logging.getLogger(__name__)
MAX_PENDING_COMMITS = 64


def _runs(pending: list[tuple[str, str, Any]]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Consecutive writes of the same kind, in order: appends can share a commit, operations cannot."""
    runs: list[tuple[str, list[tuple[str, Any]]]] = []
    for write_id, kind, payload in pending:
        if runs and runs[-1][0] == kind == "APPEND":
            runs[-1][1].append((write_id, payload))
        else:
            runs.append((kind, [(write_id, payload)]))
    return runs


def write_payload(write: TableWrite) -> str | bytes:
    """An append's Arrow rows when it has them, else the JSON text (a svcdb operation, or an older append)."""
    return write.payload_rows if write.payload_rows is not None else write.payload_json


def append_batch(
    columns: list[ColumnDef], payload: str | bytes, write_id: str, encrypt: Callable[[str], str]
) -> pa.Table:
    """An accepted append's rows as the writer commits them."""
    if isinstance(payload, bytes):
        return from_ipc(payload)  # converted and encrypted by the ingress
    # An append accepted before payload_rows existed: its rows as sent, validated but not yet encrypted.
    rows = json.loads(payload)
    return rows_to_arrow(columns, rows, load_id=write_id, first_record_id=0, encrypt=encrypt).table


def write_ids_by_table(raw_records: list[bytes]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for raw in raw_records:
        try:
            write = decode(raw, TableWriteRef)
        except GenerationMarker:
            continue
        except UnknownRecord as exc:
            log.warning("skipping a table write record", extra={"reason": str(exc)})
            continue
        grouped[write.table_id].append(write.write_id)
    return grouped


class TableWriter(mode.Service):
    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.engine = make_engine(settings.resolved_database_url)
        self.sessions = make_sessions(self.engine)
        self.catalog = iceberg.catalog_for(settings)
        self.masker = Masker(settings.secret_key)
        self.publisher = Publisher.shared(settings)
        self.locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.running: set[asyncio.Task[None]] = set()

    async def on_start(self) -> None:
        await self.publisher.start()

    async def on_stop(self) -> None:
        if self.running:
            await asyncio.wait(self.running, timeout=self.settings.shutdown_timeout_seconds)
        await self.publisher.stop()
        self.engine.dispose()

    async def schedule(self, grouped: dict[str, list[str]]) -> None:
        """Commit in the background so the stream gathers the next window meanwhile. A table's commits still
        run one at a time and in order (an asyncio lock wakes its waiters first come, first served)."""
        while len(self.running) >= MAX_PENDING_COMMITS:
            # Back-pressure: the stream waits instead of queueing commits without bound.
            await asyncio.wait(self.running, return_when=asyncio.FIRST_COMPLETED)
        for table_id, write_ids in grouped.items():
            task = asyncio.create_task(self._commit_in_order(table_id, write_ids))
            self.running.add(task)
            task.add_done_callback(self.running.discard)

    async def _commit_in_order(self, table_id: str, write_ids: list[str]) -> None:
        async with self.locks[table_id]:
            await self.commit({table_id: write_ids})

    async def commit(self, grouped: dict[str, list[str]]) -> None:
        for table_id, write_ids in grouped.items():
            try:
                await asyncio.to_thread(self.commit_table, table_id, write_ids)
            except Exception as exc:
                # The writes stay PENDING in the DB; the sweeper hands them over again. One table's trouble
                # must not stop the agent that writes every other table.
                if full(exc):  # nothing was committed: the sweep after the pause finds room, or waits again
                    log.warning(
                        "storage full; the table's writes wait for the sweep",
                        extra={"table_id": table_id, "error": describe(exc)},
                    )
                    continue
                log.exception("table commit failed; it will be retried", extra={"table_id": table_id})

    def commit_table(self, table_id: str, write_ids: list[str]) -> int:
        """Apply the pending writes in the order they were accepted: runs of appends as one commit each,
        svcdb operations one by one. Returns the rows appended."""
        with self.sessions.begin() as session:
            table = session.get(AnalyticsTable, table_id)
            if table is None:
                return 0
            # Taken before the commit, so a poller sees the append RUNNING while it is written; if this
            # process dies now, the sweeper hands the writes out again.
            writes = tables.take_writes(session, table_id, write_ids, datetime.now(UTC))
            if not writes:
                return 0
            company_id = table.company_id
            pending = [(write.id, write.kind, write_payload(write)) for write in writes]
        handle = iceberg.load_table(self.catalog, company_id, table_id)
        columns = iceberg.table_columns(handle)
        encrypt = self.masker.encryptor(company_id)
        appended = 0
        for kind, run in _runs(pending):
            if kind == "APPEND":
                batches = [
                    (write_id, append_batch(columns, payload, write_id, encrypt)) for write_id, payload in run
                ]
                appended += writer.append(handle, batches).rows
                self._finish([write_id for write_id, _ in run], table_id, None)
                continue
            for write_id, op in run:
                try:
                    account = svcdb_apply.apply(handle, columns, json.loads(op), write_id, encrypt)
                except SvcDbError as exc:
                    self._finish([write_id], table_id, str(exc))
                    continue
                log.info(
                    "svcdb operation", extra={"table_id": table_id, "write_id": write_id, "result": account}
                )
                self._finish([write_id], table_id, None)
        log.info("table commit", extra={"table_id": table_id, "rows": appended, "writes": len(pending)})
        return appended

    def _finish(self, write_ids: list[str], table_id: str, error: str | None) -> None:
        now = datetime.now(UTC)
        with self.sessions.begin() as session:
            if error is None:
                tables.mark_committed(session, write_ids, now)
                stored = session.get(AnalyticsTable, table_id)
                if stored is not None:
                    stored.last_load_at = now
            else:
                tables.mark_failed(session, write_ids, error, now)

    async def sweep(self) -> None:
        """Publish again the writes still PENDING well after they were accepted (their record was lost, or
        consumed by a worker that died before taking them) or still WRITING well after a writer took them
        (it died, or its commit failed): each ends, and its APPEND job with it."""
        moment = datetime.now(UTC)
        before = moment - self.settings.queued_grace_at(moment)
        stale = await asyncio.to_thread(self._stale, before)
        for write in stale:
            record = TableWriteRef(write_id=write[0], table_id=write[1], company_id=write[2])
            await self.publisher.publish_record(record, key=write[1])

    def _stale(self, before: datetime) -> list[tuple[str, str, str]]:
        with self.sessions.begin() as session:
            found: list[TableWrite] = tables.stale_writes(session, before, 1000)
            now = datetime.now(UTC)
            for write in found:
                write.dispatched_at = now
            return [(write.id, write.table_id, write.company_id) for write in found]


def register(app: faust.App, settings: Settings) -> None:
    table_writer = TableWriter(settings)
    app.service(table_writer)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.agent(raw_topic(app, settings, TABLE_APPENDS), name="write_tables")
    async def write_tables(stream: faust.StreamT[bytes]) -> None:
        async for batch in stream.take(2000, within=settings.table_commit_interval_seconds):
            grouped = write_ids_by_table(list(batch))
            if grouped:
                await table_writer.schedule(grouped)

    @app.timer(interval=settings.reconcile_interval_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def sweep_table_writes() -> None:
        await survive_outage(table_writer.sweep, "sweep table writes")
