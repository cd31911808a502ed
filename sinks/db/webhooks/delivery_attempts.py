"""A delivery attempt's status moves in the worker: the claim (QUEUED → PROCESSING, with a lease) and the
outcome (SUCCESS or FAILED), which queues the next attempt when the failure has retries left.

Units of work for a :class:`~sinks.db.group_commit.GroupCommitter` (they take a session and never commit),
as Core statements built once: these run once per attempt on the worker's hot path. Each move is
compare-and-set on the current status, so a redelivered Kafka record or a second worker never runs the same
attempt twice. The QUEUED entry itself is written by the trigger (sinks/db/webhooks/deliveries.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session

from core.webhooks.destinations import Breaker, Outcome
from schemas.deliveries import DeliveryTask
from schemas.webhooks import ExecutionStatus, StoredWebhookConfig
from sinks import credentials
from sinks.db.index_hints import unindexed
from sinks.db.models import Webhook, WebhookExecution
from sinks.db.webhooks import destinations, executions
from sinks.db.webhooks.deliveries import PROCESSING, QUEUED, task_of

_ENTRIES = cast(Table, WebhookExecution.__table__)
# The worker's per-delivery moves, compare-and-set on the status, as Core statements built once. A claim
# moves all of a company's tasks in a batch in one statement (the ids expand into an IN list), found by
# their primary key (``index_hints.unindexed``).
_CLAIM = (
    update(_ENTRIES)
    .where(
        _ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)),
        unindexed(_ENTRIES.c.company_id) == bindparam("company"),
        unindexed(_ENTRIES.c.status) == QUEUED,
    )
    .values(
        status=PROCESSING, started_at=bindparam("now"), lease_until=bindparam("lease_until"), waiting_for=None
    )
    .returning(
        _ENTRIES.c.id,
        _ENTRIES.c.transformed_variables,
        _ENTRIES.c.trace_parent,
        _ENTRIES.c.queued_at,
        _ENTRIES.c.waiting_since,
    )
)
# What admission needs of the entries a claim names: the destination each calls.
_WANTED = select(_ENTRIES.c.id, _ENTRIES.c.resource_type, _ENTRIES.c.resource_id).where(
    _ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)), unindexed(_ENTRIES.c.status) == QUEUED
)
_WAITED = update(_ENTRIES).where(_ENTRIES.c.id == bindparam("entry_id")).values(waited_ms=bindparam("waited"))

_CONFIG = select(Webhook.config_json).where(Webhook.id == bindparam("webhook"))
_RETRY_FIELDS = (
    "execution_id",
    "webhook_id",
    "company_id",
    "payload_id",
    "attempt_number",
    "resource_type",
    "resource_id",
    "webhook_name",
    "http_method",
    "source_ip",
    "transform_type",
    "transformed_variables",
    "trace_parent",
)
# Outcomes are written together (``finish_all``): one read of the entries still PROCESSING (locked on
# PostgreSQL; on SQLite the batch holds the write lock), then one executemany of the compare-and-set.
_PROCESSING = (
    select(_ENTRIES.c.id, _ENTRIES.c.started_at, *(_ENTRIES.c[name] for name in _RETRY_FIELDS))
    .where(
        _ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)),
        unindexed(_ENTRIES.c.status) == PROCESSING,
    )
    .with_for_update()
)
_FINISH = (
    update(_ENTRIES)
    .where(_ENTRIES.c.id == bindparam("entry_id"), _ENTRIES.c.status == PROCESSING)
    .values(
        status=bindparam("new_status"),
        ended_at=bindparam("ended"),
        duration_ms=bindparam("duration"),
        resource_request_json=bindparam("request"),
        resource_response_json=bindparam("response"),
        error_message=bindparam("error"),
    )
)


@dataclass(frozen=True)
class Attempt:
    """A claimed attempt with everything the handler call needs."""

    task: DeliveryTask
    started_at: datetime
    config: StoredWebhookConfig
    variables: dict[str, str]
    trace_parent: str | None = None
    queued_at: datetime | None = None
    # The handler resource this attempt calls, when it is one with limits (destinations.py).
    destination: str | None = None


def _ms(span: timedelta) -> int:
    return max(0, int(span.total_seconds() * 1000))


def _destinations_of(session: Session, tasks: list[DeliveryTask]) -> dict[str, str | None]:
    """Each QUEUED entry's destination (None: it calls no handler resource with limits)."""
    ids = list(dict.fromkeys(task.entry_id for task in tasks))
    rows = session.connection().execute(_WANTED, {"entry_ids": ids})
    return {row.id: destinations.of(row.resource_type, row.resource_id) for row in rows}


def _admitted(
    session: Session,
    tasks: list[DeliveryTask],
    wanted: dict[str, str | None],
    now: datetime,
    breaker: Breaker,
) -> list[DeliveryTask]:
    """The tasks whose destination can take them now; the others wait for it (destinations.admit_claims)."""
    order = dict.fromkeys(
        destinations.Wanted(task.entry_id, wanted[task.entry_id]) for task in tasks if task.entry_id in wanted
    )
    waiting = destinations.admit_claims(session, list(order), now, breaker)
    return [task for task in tasks if task.entry_id not in waiting]


def claim(
    session: Session,
    tasks: list[DeliveryTask],
    now: datetime,
    lease_until: datetime | None = None,
    breaker: Breaker | None = None,
) -> list[Attempt]:
    """QUEUED → PROCESSING, with its lease, for each task whose entry is still QUEUED and whose destination
    can take it now (with ``breaker``: its limits and circuit); the others were taken already, or wait."""
    claimed: list[Attempt] = []
    configs: dict[str, StoredWebhookConfig] = {}
    wanted: dict[str, str | None] = {}
    if breaker is not None:
        wanted = _destinations_of(session, tasks)
        tasks = _admitted(session, tasks, wanted, now, breaker)
    # Core statements on the session's connection (same transaction): the ORM's handling of a statement
    # costs more than running it, and these touch no ORM objects. One UPDATE per company in the batch
    # (tenancy stays in the WHERE clause), not one per task.
    connection = session.connection()
    by_company: dict[str, list[str]] = {}
    for task in tasks:
        by_company.setdefault(task.company_id, []).append(task.entry_id)
    # Entry id -> (company, transformed variables, traceparent, queued at) of the entries this claim moved.
    moved: dict[str, tuple[str, str | None, str | None, datetime | None]] = {}
    waited: list[dict[str, Any]] = []
    for company, entry_ids in by_company.items():
        rows = connection.execute(
            _CLAIM,
            {
                "entry_ids": list(dict.fromkeys(entry_ids)),
                "company": company,
                "now": now,
                "lease_until": lease_until,
            },
        )
        for entry_id, variables_json, trace_parent, queued_at, waiting_since in rows:
            moved[entry_id] = (company, variables_json, trace_parent, queued_at)
            if waiting_since is not None:
                waited.append({"entry_id": entry_id, "waited": _ms(now - waiting_since)})
    if waited:
        connection.execute(_WAITED, waited)
    for task in tasks:
        found = moved.get(task.entry_id)
        if found is None or found[0] != task.company_id:
            continue
        del moved[task.entry_id]  # a task repeated in the batch (a redelivered record) is claimed once
        executions.bump(session, task.webhook_id, QUEUED, -1)
        executions.bump(session, task.webhook_id, PROCESSING, 1)
        if task.webhook_id not in configs:
            config_json = connection.execute(_CONFIG, {"webhook": task.webhook_id}).scalar_one()
            configs[task.webhook_id] = StoredWebhookConfig.model_validate_json(config_json)
        claimed.append(
            Attempt(
                task=task,
                started_at=now,
                config=configs[task.webhook_id],
                variables=json.loads(found[1] or "{}"),
                trace_parent=found[2],
                queued_at=found[3],
                destination=wanted.get(task.entry_id),
            )
        )
    return claimed


@dataclass(frozen=True)
class Finish:
    task: DeliveryTask
    ok: bool
    request_json: str | None
    response_json: str | None
    error_message: str | None
    ended_at: datetime
    retry_at: datetime | None
    started_at: datetime | None = None  # when the attempt was claimed; durationMs counts from it
    # The destination the attempt called and the Retry-After it answered with; ``judged`` False when the
    # outcome says nothing of the destination (the worker running the attempt stopped).
    destination: str | None = None
    retry_after_seconds: float | None = None
    judged: bool = True
    # The attempt ran in a slot of this worker, which the settle may hand to a woken delivery of the same
    # company (HandOver); False too when the company is over its share of the worker's slots while another
    # company wants one (core/webhooks/fair_share.py). ``wake_share``: deliveries of the company may wait for
    # its share, and the slot goes to the oldest of them when no delivery of the destination takes it.
    frees_slot: bool = False
    wake_share: bool = False


@dataclass(frozen=True)
class HandOver:
    """Claim woken deliveries in the worker whose calls ended: each ended call's slot goes to one delivery
    waiting for the same destination, with no trip through Kafka (``lease`` from ``clock()``)."""

    lease: timedelta
    clock: Callable[[], datetime]


@dataclass(frozen=True)
class Settled:
    """An outcome written: the next attempt it queued, the waiting deliveries its freed slot woke (the
    caller hands those to Kafka), and the woken attempt claimed into its slot (``HandOver``)."""

    retry: DeliveryTask | None
    woken: list[DeliveryTask]
    next: Attempt | None = None
    # No delivery of the result's company waits for its share any longer (it asked for more than were left).
    share_drained: bool = False


def finish(session: Session, result: Finish) -> DeliveryTask | None:
    """PROCESSING → SUCCESS/FAILED; a failure with attempts left queues the next attempt (not yet due)."""
    return finish_all(session, [result])[0]


def finish_all(session: Session, results: list[Finish]) -> list[DeliveryTask | None]:
    """``finish`` for many outcomes in two statements; an entry no longer PROCESSING (or named twice) is left
    as it is and its result is None."""
    connection = session.connection()  # Core statements: no ORM handling needed
    ids = list(dict.fromkeys(result.task.entry_id for result in results))
    entries = {row.id: row._mapping for row in connection.execute(_PROCESSING, {"entry_ids": ids})}
    updates: list[dict[str, Any]] = []
    retries: list[DeliveryTask | None] = []
    for result in results:
        entry = entries.pop(result.task.entry_id, None)
        if entry is None:
            retries.append(None)
            continue
        status = ExecutionStatus.SUCCESS.value if result.ok else ExecutionStatus.FAILED.value
        started = result.started_at or entry["started_at"] or result.ended_at
        updates.append(
            {
                "entry_id": result.task.entry_id,
                "new_status": status,
                "ended": result.ended_at,
                "duration": max(0, int((result.ended_at - started).total_seconds() * 1000)),
                "request": result.request_json,
                "response": result.response_json,
                "error": result.error_message,
            }
        )
        executions.bump(session, entry["webhook_id"], PROCESSING, -1)
        executions.bump(session, entry["webhook_id"], status, 1)
        retries.append(_next_attempt(session, entry, result))
    if updates:
        connection.execute(_FINISH, updates)
    return retries


def settle_all(
    session: Session, results: list[Finish], breaker: Breaker, hand_over: HandOver | None = None
) -> list[Settled]:
    """``finish_all``, then each destination's state moved by its outcomes and its waiting deliveries woken
    (all of them answered with the first result). With ``hand_over`` each result that frees a slot takes one
    woken delivery of its destination, claimed here (admitted to the destination's limits as any claim)."""
    retries = finish_all(session, results)
    outcomes = [
        (
            result.destination,
            Outcome(result.ok, result.error_message, result.retry_after_seconds) if result.judged else None,
        )
        for result in results
        if result.destination is not None
    ]
    ended = max((result.ended_at for result in results), default=None)
    woken = destinations.record_outcomes(session, outcomes, ended, breaker) if outcomes and ended else {}
    left = [task for tasks in woken.values() for task in tasks]
    taken: list[Attempt | None] = [None] * len(results)
    drained: set[str] = set()
    if hand_over is not None and (left or any(result.wake_share for result in results)):
        left, taken, drained = _hand_over(session, results, woken, breaker, hand_over)
    return [
        Settled(retry, left if index == 0 else [], taken[index], results[index].task.company_id in drained)
        for index, retry in enumerate(retries)
    ]


def _hand_over(
    session: Session,
    results: list[Finish],
    woken: dict[str, list[DeliveryTask]],
    breaker: Breaker,
    hand_over: HandOver,
) -> tuple[list[DeliveryTask], list[Attempt | None], set[str]]:
    """Claim one woken delivery per result that frees a slot, of the result's destination (oldest first), or
    else one of its company's deliveries waiting for the company's share; answers the woken deliveries left
    for Kafka, each result's claimed attempt and the companies none of whose deliveries wait for a share."""
    slots: dict[str, list[int]] = {}
    for index, result in enumerate(results):
        if result.frees_slot and result.destination is not None:
            slots.setdefault(result.destination, []).append(index)
    chosen: list[DeliveryTask] = []
    left: list[DeliveryTask] = []
    for resource_id, tasks in woken.items():
        free = len(slots.get(resource_id, ()))
        chosen.extend(tasks[:free])
        left.extend(tasks[free:])
    taken: list[Attempt | None] = [None] * len(results)
    moment = hand_over.clock()
    if chosen:
        for attempt in claim(session, chosen, moment, moment + hand_over.lease, breaker):
            taken[slots[attempt.destination or ""].pop(0)] = attempt
    spare: dict[str, list[int]] = {}
    for index, result in enumerate(results):
        if result.frees_slot and result.wake_share and taken[index] is None:
            spare.setdefault(result.task.company_id, []).append(index)
    wanted = {company_id: len(indices) for company_id, indices in spare.items()}
    attempts, drained = claim_for_shares(session, wanted, moment, moment + hand_over.lease, breaker)
    for attempt in attempts:
        taken[spare[attempt.task.company_id].pop(0)] = attempt
    return left, taken, drained


def claim_for_shares(
    session: Session, wanted: dict[str, int], now: datetime, lease_until: datetime, breaker: Breaker
) -> tuple[list[Attempt], set[str]]:
    """Claim up to ``wanted[company]`` of each company's oldest deliveries waiting for its share of a worker's
    slots; answers the attempts and the companies none of whose deliveries wait for a share any longer. A
    taken delivery whose destination is at its limit waits for the destination instead (the claim's
    admission)."""
    attempts: list[Attempt] = []
    drained: set[str] = set()
    for company_id, count in wanted.items():
        waiting = destinations.take_for_share(session, company_id, count, now)
        if len(waiting) < count:
            drained.add(company_id)
        attempts.extend(claim(session, waiting, now, lease_until, breaker))
    return attempts, drained


def _next_attempt(session: Session, entry: Any, result: Finish) -> DeliveryTask | None:
    if result.ok or result.retry_at is None:
        return None
    retry = executions.add_entry(
        session,
        WebhookExecution(
            id=credentials.new_id(),
            **{name: entry[name] for name in _RETRY_FIELDS if name != "attempt_number"},
            attempt_number=entry["attempt_number"] + 1,
            status=QUEUED,
            queued_at=result.ended_at,
            available_at=result.retry_at,
            dispatched_at=None,
        ),
    )
    return task_of(retry)
