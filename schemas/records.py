"""Every record that crosses Kafka: one pydantic model per (type, version), encoded and decoded here only.

A record travels in an ``Envelope`` (``type``, ``v``, ``id``, ``createdAt``, ``payload``). Each svc topic
carries exactly one record type; ``decode`` refuses a record of another type, a version this process does not
know, or a payload its model rejects, with ``UnknownRecord`` (consumers log it and skip it, never crash). A
newer version ships with an upgrader from the version before it (``UPGRADES``), so records of the old
version still in a topic keep decoding while the new code rolls out.

Payloads are small: ids and metadata, never bodies (a real broker refuses records over about 1 MB).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from pydantic import Field, ValidationError

from schemas.base import WireModel
from schemas.envelopes import Envelope
from schemas.topics import (
    ANALYTICS_JOBS,
    SCHEDULE_TICKS,
    SCHEDULED_DEAD_LETTER,
    TABLE_APPENDS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_RESULTS,
)


class UnknownRecord(ValueError):
    """A record this process cannot read: another type, an unknown version, or a malformed payload."""


class GenerationMarker(UnknownRecord):
    """The embedded broker's renewal marker (sinks/embedded_broker/rotation.py): skipped silently."""


# Sent once per partition of the old topic generation by a renewal: read, skipped and committed.
GENERATION_MARKER_TYPE = "svc.generation.marker"


def generation_marker(generation: int) -> bytes:
    return Envelope(type=GENERATION_MARKER_TYPE, v=1, payload={"generation": generation}).to_bytes()


class Record(WireModel):
    """A record's payload. ``TYPE`` and ``VERSION`` go in the envelope; ``TOPIC`` is the svc topic that
    carries it (None for records published to topics users name, such as ``kafka://`` handler endpoints)."""

    TYPE: ClassVar[str]
    VERSION: ClassVar[int] = 1
    TOPIC: ClassVar[str | None]


class DeliveryTask(Record):
    """Which history entry (one attempt of a webhook delivery) a worker runs."""

    TYPE = "webhook.delivery"
    TOPIC = WEBHOOK_DELIVERIES

    entry_id: str
    execution_id: str
    webhook_id: str
    company_id: str
    attempt_number: int = Field(ge=1)


class DeliveryResult(Record):
    """Published once per finished attempt, for downstream consumers."""

    TYPE = "webhook.result"
    TOPIC = WEBHOOK_RESULTS

    entry_id: str
    execution_id: str
    webhook_id: str
    company_id: str
    attempt_number: int
    status: str
    resource_type: str | None
    resource_id: str | None
    duration_ms: int | None
    error_message: str | None
    will_retry: bool


class ScheduleTick(Record):
    """A claimed run of a scheduled event; the run row in the DB holds the rest."""

    TYPE = "schedule.tick"
    TOPIC = SCHEDULE_TICKS

    event_id: str
    run_id: str
    company_id: str
    scheduled_for: datetime | None = None


class ScheduledDeadLetter(Record):
    """A scheduled run that ended FAILED after its retries, for an event with deadLetterConfig enabled.
    Keyed by runId; published after the FAILED state is committed, at least once (a worker that dies
    between publishing and recording it publishes it again: consumers drop a runId they have seen)."""

    TYPE = "scheduled.dead-letter"
    TOPIC = SCHEDULED_DEAD_LETTER

    run_id: str
    scheduled_event_id: str
    company_id: str
    scheduled_time: datetime
    attempts: int = Field(ge=1)
    last_error: str | None = None
    failed_at: datetime


class AnalyticsJobRef(Record):
    """A query or load job to run; the job row in the DB holds the rest."""

    TYPE = "analytics.job"
    TOPIC = ANALYTICS_JOBS

    job_id: str


class TableWriteRef(Record):
    """An accepted write (append rows or a svcdb operation) waiting to be committed to its table."""

    TYPE = "table.write"
    TOPIC = TABLE_APPENDS

    write_id: str
    table_id: str
    company_id: str


class HandlerRequest(Record):
    """What a ``kafka://<topic>`` handler receives: the request a webhook or a scheduled event sends to its
    tool, agent or manager (the same JSON an HTTP handler is POSTed)."""

    TYPE = "webhook.handler.request"
    TOPIC = None

    request: dict[str, Any]


RECORDS: tuple[type[Record], ...] = (
    DeliveryTask,
    DeliveryResult,
    ScheduleTick,
    ScheduledDeadLetter,
    AnalyticsJobRef,
    TableWriteRef,
    HandlerRequest,
)
BY_TYPE: dict[str, type[Record]] = {record.TYPE: record for record in RECORDS}
BY_TOPIC: dict[str, type[Record]] = {record.TOPIC: record for record in RECORDS if record.TOPIC is not None}

UPGRADES: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}
"""(type, old version) -> a function that turns that version's payload into the next version's."""

R = TypeVar("R", bound=Record)


def envelope_of(record: Record) -> Envelope:
    payload = record.model_dump(mode="json", by_alias=True)
    if isinstance(record, HandlerRequest):
        payload = record.request  # handlers receive the request itself as the payload
    return Envelope(type=record.TYPE, v=record.VERSION, payload=payload)


def encode(record: Record) -> bytes:
    return envelope_of(record).to_bytes()


def decode(raw: bytes | Envelope, expected: type[R]) -> R:
    """The record in ``raw``, upgraded to the current version of ``expected``; UnknownRecord otherwise."""
    try:
        envelope = raw if isinstance(raw, Envelope) else Envelope.from_bytes(raw)
    except ValueError as exc:
        raise UnknownRecord("not a record envelope") from exc
    if envelope.type == GENERATION_MARKER_TYPE:
        raise GenerationMarker("a topic generation's marker")
    if envelope.type != expected.TYPE:
        raise UnknownRecord(f"a {envelope.type!r} record where {expected.TYPE!r} records belong")
    payload, version = dict(envelope.payload), envelope.v
    while version < expected.VERSION:
        upgrade = UPGRADES.get((envelope.type, version))
        if upgrade is None:
            raise UnknownRecord(f"{envelope.type} v{version} cannot be upgraded to v{expected.VERSION}")
        payload, version = upgrade(payload), version + 1
    if version != expected.VERSION:
        raise UnknownRecord(
            f"{envelope.type} v{version} is newer than this process knows (v{expected.VERSION})"
        )
    if expected is HandlerRequest:
        payload = {"request": payload}
    try:
        return expected.model_validate(payload)
    except ValidationError as exc:
        raise UnknownRecord(f"a malformed {envelope.type} record") from exc


def decode_from_topic(topic: str, raw: bytes) -> Record:
    """Decode a record read from the svc topic ``topic`` (unprefixed) as that topic's one record type."""
    expected = BY_TOPIC.get(topic)
    if expected is None:
        raise UnknownRecord(f"no record type is registered for topic {topic!r}")
    return decode(raw, expected)
