"""Trigger deduplication in the metadata DB: look a key up, claim it with the delivery's history entry, sweep
expired keys.

The claim is an ``INSERT ... ON CONFLICT (webhook_id, dedup_key) DO UPDATE ... WHERE expires_at <= now
RETURNING``, run in the group commit's transaction together with the delivery's history rows
(``record_once``). It answers a row when the key was free (or held only by an expired claim, which it takes
over) and none when a live claim holds it; the unique index decides, never a read that another writer could
overtake. A refused claim therefore raises nothing: the batch commits, the other deliveries in it are
recorded, and the refused one writes no history row and answers with the live claim's executionId. Two
deliveries with one key in the same batch are decided the same way (the second sees the first's row, same
transaction); on PostgreSQL a claim that meets another transaction's uncommitted row waits for it, then
either finds it committed (a duplicate) or takes the key.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, delete, exists, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from schemas.deliveries import DeliveryTask
from schemas.webhooks import ExecutionStatus
from sinks.db.models import WebhookDedup, WebhookExecution
from sinks.db.prepared import Prepared
from sinks.db.webhooks import deliveries
from sinks.db.webhooks.deliveries import Delivery

_DEDUP = cast(Table, WebhookDedup.__table__)
_ENTRIES = cast(Table, WebhookExecution.__table__)
# Expired keys deleted per statement, and statements per sweep: each is its own short transaction, so the
# sweep never holds SQLite's write lock for long; up to 10,000 keys a pass (a pass every few seconds).
SWEEP_BATCH = 1_000
SWEEP_BATCHES = 10


class ClaimConflict(RuntimeError):
    """A key's row that this delivery may neither take nor answer with; the trigger answers 500."""


@dataclass(frozen=True)
class Claim:
    """A key a delivery will claim when it is recorded: the trigger found no live claim for it."""

    webhook_id: str
    company_id: str
    key: str
    seen_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class Duplicate:
    """The key was claimed by another delivery while this one was on its way: nothing was recorded."""

    execution_id: str


# Built once, bound per delivery: building these per keyed delivery (the conflict clause's ``excluded``
# alias and the cache key of each new construct) cost the group commit's thread more than running them,
# and every delivery of the batch waited for it (bench/bench_dedup.py). They run on the driver's cursor
# (sinks/db/prepared.py): every keyed trigger runs both, and SQLAlchemy's execution of a statement cost
# several times what the database spends on it.
_LOOKUP = Prepared(
    select(_DEDUP.c.execution_id).where(
        _DEDUP.c.webhook_id == bindparam("webhook_id"),
        _DEDUP.c.dedup_key == bindparam("dedup_key"),
        _DEDUP.c.company_id == bindparam("company_id"),
        _DEDUP.c.expires_at > bindparam("seen_at"),
    )
)


def _claim_statement(dialect: Any) -> Any:
    statement = dialect.insert(_DEDUP).values(
        webhook_id=bindparam("webhook_id"),
        dedup_key=bindparam("dedup_key"),
        company_id=bindparam("company_id"),
        execution_id=bindparam("execution_id"),
        seen_at=bindparam("seen_at"),
        expires_at=bindparam("expires_at"),
    )
    fresh = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=[_DEDUP.c.webhook_id, _DEDUP.c.dedup_key],
        set_={
            "execution_id": fresh.execution_id,
            "seen_at": fresh.seen_at,
            "expires_at": fresh.expires_at,
        },
        # Only an expired claim of the same company is taken over; a live one refuses the insert.
        where=and_(_DEDUP.c.expires_at <= bindparam("now"), _DEDUP.c.company_id == fresh.company_id),
    ).returning(_DEDUP.c.execution_id)


_CLAIM = {"postgresql": Prepared(_claim_statement(postgresql)), "sqlite": Prepared(_claim_statement(sqlite))}


def _keys(claim: Claim) -> dict[str, Any]:
    return {
        "webhook_id": claim.webhook_id,
        "dedup_key": claim.key,
        "company_id": claim.company_id,
        "seen_at": claim.seen_at,
    }


def lookup(connection: Connection | Session, claim: Claim) -> str | None:
    """The executionId of the live claim of ``claim``'s key on its webhook, if there is one."""
    if isinstance(connection, Session):
        connection = connection.connection()
    found = _LOOKUP.rows(connection, _keys(claim))
    return str(found[0][0]) if found else None


def take(session: Session, claim: Claim, execution_id: str) -> str | None:
    """Claim the key for ``execution_id``: None when it is now this delivery's, or the executionId of the
    live claim that holds it."""
    connection = session.connection()
    values = {
        **_keys(claim),
        "execution_id": execution_id,
        "expires_at": claim.expires_at,
        "now": claim.seen_at,
    }
    if _CLAIM[connection.dialect.name].rows(connection, values):
        return None
    holder = lookup(connection, claim)
    if holder is None:
        # The conflicting row is another company's (webhook ids are unique, so never in practice; the
        # row is locked until this transaction ends, so the sweep cannot have taken it): refuse the
        # delivery rather than answer with another company's executionId or record it unclaimed.
        raise ClaimConflict("the deduplication key is held by a row of another company")
    return holder


def record_once(session: Session, delivery: Delivery, claim: Claim) -> DeliveryTask | Duplicate:
    """The delivery's history rows and its key's claim, in one transaction; only the claim when it is
    refused (a ``Duplicate``), so no second delivery is recorded or queued."""
    holder = take(session, claim, delivery.execution_id)
    if holder is not None:
        return Duplicate(holder)
    return deliveries.record_delivery(session, delivery)


def recording(delivery: Delivery, claim: Claim | None) -> Callable[[Session], DeliveryTask | Duplicate]:
    """The group commit's unit of work for ``delivery``: ``record_delivery`` alone when it has no key."""
    if claim is None:
        return functools.partial(deliveries.record_delivery, delivery=delivery)
    return functools.partial(record_once, delivery=delivery, claim=claim)


def release(session: Session, claim: Claim, execution_id: str) -> None:
    """Free the key of a delivery that was recorded but then marked FAILED because it could not be queued:
    the caller was told to send it again, and that retry must not be answered as a duplicate. A delivery
    still QUEUED (it may yet run) keeps its key."""
    failed = exists().where(
        _ENTRIES.c.execution_id == execution_id,
        _ENTRIES.c.company_id == claim.company_id,
        _ENTRIES.c.status == ExecutionStatus.FAILED.value,
    )
    session.execute(
        delete(_DEDUP).where(
            _DEDUP.c.webhook_id == claim.webhook_id,
            _DEDUP.c.dedup_key == claim.key,
            _DEDUP.c.company_id == claim.company_id,
            _DEDUP.c.execution_id == execution_id,
            failed,
        )
    )


def sweep_expired(session: Session, now: datetime, limit: int = SWEEP_BATCH) -> int:
    """Delete up to ``limit`` keys whose window ended; returns how many."""
    connection = session.connection()
    keys = connection.execute(
        select(_DEDUP.c.webhook_id, _DEDUP.c.dedup_key).where(_DEDUP.c.expires_at <= now).limit(limit)
    ).all()
    if not keys:
        return 0
    # The expiry is checked again: a key claimed afresh since the read above keeps its new claim.
    connection.execute(
        delete(_DEDUP).where(
            tuple_(_DEDUP.c.webhook_id, _DEDUP.c.dedup_key).in_([tuple(key) for key in keys]),
            _DEDUP.c.expires_at <= now,
        )
    )
    return len(keys)


async def sweep(run: Callable[[Callable[[Session], int]], Awaitable[int]], now: datetime) -> int:
    """Expired keys deleted in batches of ``SWEEP_BATCH`` (each ``run`` in its own transaction), at most
    ``SWEEP_BATCHES`` of them; what is left waits for the next pass (lookups ignore it meanwhile)."""
    total = 0
    for _ in range(SWEEP_BATCHES):
        deleted = await run(functools.partial(sweep_expired, now=now))
        total += deleted
        if deleted < SWEEP_BATCH:
            break
    return total
