"""Queue one svcdb operation on its table's ordered writer and wait for the outcome (webhooks and schedules).

The write id is the caller's idempotency key (a delivery's execution id, a scheduled run's id): a retried
attempt finds the write already queued and waits for it instead of applying the operation twice.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from schemas.deliveries import HandlerOutcome
from schemas.records import TableWriteRef
from sinks.db.analytics import tables
from sinks.db.group_commit import GroupCommitter
from sinks.kafka import Publisher

POLL_SECONDS = 0.1


def _queue(
    session: Session, *, company_id: str, table_id: str, write_id: str, operation: dict[str, Any]
) -> bool:
    if tables.get(session, company_id, table_id) is None:
        return False
    if tables.write_state(session, write_id) is None:
        tables.add_write(
            session,
            write_id=write_id,
            table_id=table_id,
            company_id=company_id,
            kind="SVCDB",
            payload=operation,
            row_count=0,
            now=datetime.now(UTC),
        )
    return True


class SvcDbQueue:
    def __init__(
        self, committer: GroupCommitter, sessions: sessionmaker[Session], publisher: Publisher
    ) -> None:
        self._committer = committer
        self._sessions = sessions
        self._publisher = publisher

    async def run(
        self,
        *,
        company_id: str,
        table_id: str,
        write_id: str,
        operation: dict[str, Any],
        limit_seconds: float,
    ) -> HandlerOutcome | None:
        """The operation's outcome, or None when the table does not exist in the company."""
        queue = partial(
            _queue, company_id=company_id, table_id=table_id, write_id=write_id, operation=operation
        )
        if not await self._committer.run(queue):
            return None
        record = TableWriteRef(write_id=write_id, table_id=table_id, company_id=company_id)
        await self._publisher.publish_record(record, key=table_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit_seconds
        while loop.time() < deadline:
            state = await asyncio.to_thread(self._state, write_id)
            if state is not None and state[0] == "COMMITTED":
                return HandlerOutcome(ok=True, response={"writeId": write_id, "status": "COMMITTED"})
            if state is not None and state[0] == "FAILED":
                return HandlerOutcome(ok=False, error=f"svcdb operation failed: {state[1]}", retryable=False)
            await asyncio.sleep(POLL_SECONDS)
        return HandlerOutcome(ok=False, error=f"svcdb operation did not finish within {limit_seconds:g} s")

    def _state(self, write_id: str) -> tuple[str, str | None] | None:
        with self._sessions() as session:
            return tables.write_state(session, write_id)
