"""Destinations in the metadata DB: the admission of claimed deliveries to their destination's limits and
circuit, the outcomes that move its state, and the waiting deliveries a freed slot wakes.

A delivery a destination cannot take now stays QUEUED with ``waiting_for`` set to the destination and
``dispatched_at`` NULL: no sweep hands it to Kafka by time, it burns no attempt and holds no worker slot.
A finished call wakes the oldest waiting deliveries its destination can take (they are handed to Kafka
again and claimed as any delivery), and the leader's sweep wakes those whose destination has room for
another reason (a rate bucket refilled, a Retry-After or a probe interval over, a worker gone).

Deliveries of a company at its share of a worker's slots wait the same way, ``waiting_for`` their company's
marker (core/webhooks/fair_share.py); the company's ending calls take them (``take_for_share``).

Admission takes the destinations' handler-resource rows ``FOR UPDATE`` (PostgreSQL; SQLite's write lock
serialises every writer), so the workers' claims for one destination take turns and its limits hold across
processes. Calls in flight are counted, not kept: the PROCESSING entries for the destination.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.webhooks import fair_share
from core.webhooks.destinations import Breaker, Circuit, Limits, Outcome, State, admit, after, capacity, fresh
from schemas.deliveries import DeliveryTask
from sinks.db.index_hints import unindexed
from sinks.db.models import DestinationState, HandlerResource, WebhookExecution
from sinks.db.webhooks.deliveries import PROCESSING, QUEUED

_ENTRIES = cast(Table, WebhookExecution.__table__)
_STATES = cast(Table, DestinationState.__table__)
_STATE_FIELDS = [item.name for item in fields(State) if item.name != "circuit"]
# Resource types whose resource is a handler resource with limits (an svcdb write names a table).
LIMITED_TYPES = frozenset({"AGENT", "TOOL", "MANAGER"})
# How many deliveries waiting for a company's share the leader's sweep wakes a round, for a company holding no
# slot anywhere: the first of them to be claimed hands its slot on as its calls end.
SHARE_WAKE = 16


def of(resource_type: str | None, resource_id: str | None) -> str | None:
    """The destination an entry calls, or None when it calls none with limits."""
    return resource_id if resource_type in LIMITED_TYPES else None


@dataclass(frozen=True)
class Destination:
    resource_id: str
    company_id: str
    limits: Limits


def _destinations(session: Session, resource_ids: Iterable[str], lock: bool) -> dict[str, Destination]:
    ids = sorted(set(resource_ids))
    if not ids:
        return {}
    query = select(
        HandlerResource.id,
        HandlerResource.company_id,
        HandlerResource.max_concurrency,
        HandlerResource.max_per_second,
    ).where(HandlerResource.id.in_(ids))
    if lock:
        query = query.order_by(HandlerResource.id).with_for_update()
    return {
        row.id: Destination(row.id, row.company_id, Limits(row.max_concurrency, row.max_per_second))
        for row in session.execute(query)
    }


def _states(session: Session, resource_ids: Iterable[str], now: datetime) -> dict[str, State]:
    ids = list(resource_ids)
    found = (
        {
            row.resource_id: State(
                circuit=Circuit(row.state), **{name: getattr(row, name) for name in _STATE_FIELDS}
            )
            for row in session.execute(select(_STATES).where(_STATES.c.resource_id.in_(ids)))
        }
        if ids
        else {}
    )
    return {resource_id: found.get(resource_id) or fresh(now) for resource_id in ids}


def in_flight(session: Session, resource_ids: Iterable[str]) -> Counter[str]:
    """PROCESSING deliveries per destination (the status index holds them all; they are few)."""
    ids = list(resource_ids)
    if not ids:
        return Counter()
    rows = session.execute(
        select(_ENTRIES.c.resource_id, func.count())
        .where(_ENTRIES.c.status == PROCESSING, _ENTRIES.c.resource_id.in_(ids))
        .group_by(_ENTRIES.c.resource_id)
    )
    return Counter({resource_id: int(count) for resource_id, count in rows})


def _upsert(dialect: Any) -> Any:
    statement = dialect.insert(_STATES)
    return statement.on_conflict_do_update(
        index_elements=["resource_id"],
        set_={name: statement.excluded[name] for name in ["state", *_STATE_FIELDS]},
    )


_UPSERT = {"postgresql": _upsert(postgresql), "sqlite": _upsert(sqlite)}


def _write_states(session: Session, states: dict[str, tuple[Destination, State]]) -> None:
    if not states:
        return
    connection = session.connection()
    rows = [
        {
            "resource_id": resource_id,
            "company_id": destination.company_id,
            "state": state.circuit.value,
            **{name: getattr(state, name) for name in _STATE_FIELDS},
        }
        for resource_id, (destination, state) in sorted(states.items())
    ]
    connection.execute(_UPSERT[connection.dialect.name], rows)


@dataclass(frozen=True)
class Wanted:
    """A QUEUED delivery a claim is about to start, with the destination it calls (None: none of limits)."""

    entry_id: str
    resource_id: str | None


def admit_claims(session: Session, wanted: Sequence[Wanted], now: datetime, breaker: Breaker) -> set[str]:
    """Admit what each destination can take now, in the order given; the others wait (QUEUED, not handed to
    Kafka, ``waiting_for`` their destination). Answers the entry ids that wait."""
    by_destination: dict[str, list[str]] = defaultdict(list)
    for want in wanted:
        if want.resource_id is not None:
            by_destination[want.resource_id].append(want.entry_id)
    destinations = _destinations(session, by_destination, lock=True)
    if not destinations:
        return set()
    states = _states(session, destinations, now)
    counts = in_flight(session, destinations)
    changed: dict[str, tuple[Destination, State]] = {}
    waiting: dict[str, list[str]] = {}
    for resource_id, destination in destinations.items():
        entries = by_destination[resource_id]
        admitted, state = admit(
            states[resource_id], destination.limits, counts[resource_id], len(entries), now, breaker
        )
        if state != states[resource_id]:
            changed[resource_id] = (destination, state)
        if admitted < len(entries):
            waiting[resource_id] = entries[admitted:]
    _write_states(session, changed)
    for resource_id, entry_ids in waiting.items():
        session.execute(
            update(_ENTRIES)
            .where(_ENTRIES.c.id.in_(entry_ids), unindexed(_ENTRIES.c.status) == QUEUED)
            .values(
                waiting_for=resource_id,
                waiting_since=func.coalesce(_ENTRIES.c.waiting_since, now),
                dispatched_at=None,
                available_at=None,
            )
        )
    return {entry_id for entry_ids in waiting.values() for entry_id in entry_ids}


def record_outcomes(
    session: Session, outcomes: Sequence[tuple[str, Outcome | None]], now: datetime, breaker: Breaker
) -> dict[str, list[DeliveryTask]]:
    """Move each destination's state by its calls' outcomes (None: a call that says nothing of it), then wake
    the waiting deliveries it has room for; answers their tasks by destination, oldest first (the caller
    claims them or hands them to Kafka)."""
    by_destination: dict[str, list[Outcome]] = defaultdict(list)
    for resource_id, outcome in outcomes:
        by_destination[resource_id].extend([] if outcome is None else [outcome])
    # Locked as a claim locks them, before the states are written: the settle that writes these outcomes
    # may claim woken deliveries (HandOver), and a claim of another worker takes the resource rows first,
    # then the states; the other order deadlocks the two on PostgreSQL.
    destinations = _destinations(session, by_destination, lock=True)
    if not destinations:
        return {}
    states = _states(session, destinations, now)
    changed = {
        resource_id: (destination, after(states[resource_id], by_destination[resource_id], now, breaker))
        for resource_id, destination in destinations.items()
    }
    _write_states(session, changed)
    return _wake(
        session, {resource_id: state for resource_id, (_, state) in changed.items()}, destinations, now
    )


def _wake(
    session: Session, states: dict[str, State], destinations: dict[str, Destination], now: datetime
) -> dict[str, list[DeliveryTask]]:
    counts = in_flight(session, destinations)
    woken: dict[str, list[DeliveryTask]] = {}
    for resource_id, destination in sorted(destinations.items()):
        room = capacity(states[resource_id], destination.limits, counts[resource_id], now)
        if room <= 0:
            continue
        tasks = _take_waiting(session, resource_id, room, now)
        if tasks:
            woken[resource_id] = tasks
    return woken


def _take_waiting(session: Session, waiting_for: str, limit: int, now: datetime) -> list[DeliveryTask]:
    """The oldest ``limit`` deliveries waiting for ``waiting_for``, no longer waiting: marked dispatched now
    (the caller claims them or hands them to Kafka)."""
    ids = list(
        session.scalars(
            select(_ENTRIES.c.id)
            .where(_ENTRIES.c.waiting_for == waiting_for)
            .order_by(_ENTRIES.c.queued_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    if not ids:
        return []
    rows = session.execute(
        update(_ENTRIES)
        .where(_ENTRIES.c.id.in_(ids), unindexed(_ENTRIES.c.status) == QUEUED)
        .values(waiting_for=None, dispatched_at=now)
        .returning(
            _ENTRIES.c.id,
            _ENTRIES.c.execution_id,
            _ENTRIES.c.webhook_id,
            _ENTRIES.c.company_id,
            _ENTRIES.c.attempt_number,
        )
    )
    return [
        DeliveryTask(
            entry_id=row.id,
            execution_id=row.execution_id,
            webhook_id=row.webhook_id,
            company_id=row.company_id,
            attempt_number=row.attempt_number,
        )
        for row in rows
    ]


def wait_for_share(session: Session, tasks: Sequence[DeliveryTask], now: datetime) -> None:
    """The deliveries of companies at their share of a worker's slots wait (core/webhooks/fair_share.py):
    QUEUED, not handed to Kafka, ``waiting_for`` their company's marker."""
    by_company: dict[str, list[str]] = defaultdict(list)
    for task in tasks:
        by_company[task.company_id].append(task.entry_id)
    for company_id, entry_ids in by_company.items():
        session.execute(
            update(_ENTRIES)
            .where(
                _ENTRIES.c.id.in_(entry_ids),
                unindexed(_ENTRIES.c.company_id) == company_id,
                unindexed(_ENTRIES.c.status) == QUEUED,
            )
            .values(
                waiting_for=fair_share.marker(company_id),
                waiting_since=func.coalesce(_ENTRIES.c.waiting_since, now),
                dispatched_at=None,
                available_at=None,
            )
        )


def take_for_share(session: Session, company_id: str, limit: int, now: datetime) -> list[DeliveryTask]:
    """The company's oldest ``limit`` deliveries waiting for its share, taken (its slots handed on)."""
    return _take_waiting(session, fair_share.marker(company_id), limit, now)


def _waited_for(session: Session, limit: int) -> list[str]:
    """What deliveries wait for (destinations, and companies' shares), each once."""
    return list(
        session.scalars(
            select(_ENTRIES.c.waiting_for).where(_ENTRIES.c.waiting_for.is_not(None)).distinct().limit(limit)
        )
    )


def wake_due(session: Session, now: datetime, limit: int = 1_000) -> bool:
    """Whether the leader's sweep (``wake_waiting``) may wake anything now: a delivery waits for a company's
    share or for a handler that is gone, or a destination deliveries wait for has room. Reads only, so a
    sweep that would wake nothing (a destination at its limit, whose ending calls hand their slots over
    themselves) never takes the write lock: every 0.2 s it held the group commit that the other companies'
    claims and settles wait for."""
    waited_for = _waited_for(session, limit)
    if any(fair_share.company_of(item) is not None for item in waited_for):
        return True
    found = _destinations(session, waited_for, lock=False)
    if len(found) < len(waited_for):
        return True
    states = _states(session, found, now)
    counts = in_flight(session, found)
    return any(
        capacity(states[resource_id], destination.limits, counts[resource_id], now) > 0
        for resource_id, destination in found.items()
    )


def wake_waiting(session: Session, now: datetime, limit: int = 1_000) -> list[DeliveryTask]:
    """The leader's sweep: wake the waiting deliveries whose destination has room now, and a few of those
    waiting for the share of a company that holds no slot anywhere (the worker that would have handed its
    slots over stopped)."""
    waited_for = _waited_for(session, limit)
    companies = [company for company in map(fair_share.company_of, waited_for) if company is not None]
    resource_ids = [item for item in waited_for if fair_share.company_of(item) is None]
    woken_shares = _wake_shares(session, companies, now)
    destinations = _destinations(session, resource_ids, lock=False)
    gone = [resource_id for resource_id in resource_ids if resource_id not in destinations]
    if gone:
        # Their handler resource was deleted: they go on, and their call fails as a missing handler's does.
        session.execute(
            update(_ENTRIES)
            .where(_ENTRIES.c.waiting_for.in_(gone))
            .values(waiting_for=None, available_at=now)
        )
    if not destinations:
        return woken_shares
    woken = _wake(session, _states(session, destinations, now), destinations, now)
    return woken_shares + [task for tasks in woken.values() for task in tasks]


def _wake_shares(session: Session, companies: list[str], now: datetime) -> list[DeliveryTask]:
    if not companies:
        return []
    holding = set(
        session.scalars(
            select(_ENTRIES.c.company_id)
            .where(_ENTRIES.c.status == PROCESSING, unindexed(_ENTRIES.c.company_id).in_(companies))
            .distinct()
        )
    )
    return [
        task
        for company in companies
        if company not in holding
        for task in take_for_share(session, company, SHARE_WAKE, now)
    ]


@dataclass(frozen=True)
class Listed:
    resource_id: str
    name: str
    type: str
    limits: Limits
    state: State
    in_flight: int
    waiting: int
    blocked: bool


def listing(session: Session, company_id: str, now: datetime) -> list[Listed]:
    """The company's handler resources as destinations, with their state, calls in flight and waiting."""
    resources = session.execute(
        select(
            HandlerResource.id,
            HandlerResource.name,
            HandlerResource.type,
            HandlerResource.max_concurrency,
            HandlerResource.max_per_second,
        )
        .where(HandlerResource.company_id == company_id)
        .order_by(HandlerResource.name, HandlerResource.id)
    ).all()
    ids = [row.id for row in resources]
    states = _states(session, ids, now)
    counts = in_flight(session, ids)
    waiting = (
        Counter(
            {
                resource_id: int(count)
                for resource_id, count in session.execute(
                    select(_ENTRIES.c.waiting_for, func.count())
                    .where(_ENTRIES.c.waiting_for.in_(ids))
                    .group_by(_ENTRIES.c.waiting_for)
                )
            }
        )
        if ids
        else Counter()
    )
    listed = []
    for row in resources:
        state = states[row.id]
        listed.append(
            Listed(
                resource_id=row.id,
                name=row.name,
                type=row.type,
                limits=Limits(row.max_concurrency, row.max_per_second),
                state=state,
                in_flight=counts[row.id],
                waiting=waiting[row.id],
                blocked=state.blocked_until is not None and state.blocked_until > now,
            )
        )
    return listed


def census(session: Session) -> tuple[Counter[str], int]:
    """Destinations by circuit state (those ever called: a destination without a state row is CLOSED) and
    the deliveries waiting for any destination, for the metrics; both read small tables or indexes."""
    states = Counter(
        {
            str(state): int(count)
            for state, count in session.execute(
                select(_STATES.c.state, func.count()).group_by(_STATES.c.state)
            )
        }
    )
    waiting = session.scalar(
        select(func.count()).select_from(_ENTRIES).where(_ENTRIES.c.waiting_for.is_not(None))
    )
    return states, int(waiting or 0)
