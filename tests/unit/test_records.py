"""The record registry: one record type per topic, round trips, and records written by earlier code."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest

from schemas import records
from schemas.records import (
    BY_TOPIC,
    RECORDS,
    AnalyticsJobRef,
    DeliveryResult,
    DeliveryTask,
    HandlerRequest,
    Record,
    ScheduleTick,
    TableWriteRef,
    UnknownRecord,
    decode,
    decode_from_topic,
    encode,
)
from schemas.topics import ALL_TOPICS

pytestmark = pytest.mark.unit

# Records exactly as the code before the registry wrote them: they must keep decoding.
EARLIER: list[tuple[type[Record], dict[str, Any]]] = [
    (
        DeliveryTask,
        {
            "type": "webhook.delivery",
            "v": 1,
            "id": "a" * 32,
            "createdAt": "2026-11-24T10:00:00Z",
            "payload": {
                "entryId": "e1",
                "executionId": "x1",
                "webhookId": "w1",
                "companyId": "c1",
                "attemptNumber": 1,
            },
        },
    ),
    (
        ScheduleTick,
        {
            "type": "schedule.tick",
            "v": 1,
            "id": "b" * 32,
            "createdAt": "2026-11-24T10:00:00Z",
            "payload": {
                "eventId": "ev",
                "runId": "run",
                "companyId": "c1",
                "scheduledFor": "2026-11-24T10:00:00+00:00",
            },
        },
    ),
    (
        AnalyticsJobRef,
        {
            "type": "analytics.job",
            "v": 1,
            "id": "c" * 32,
            "createdAt": "2026-11-24T10:00:00Z",
            "payload": {"jobId": "j"},
        },
    ),
    (
        TableWriteRef,
        {
            "type": "table.write",
            "v": 1,
            "id": "d" * 32,
            "createdAt": "2026-11-24T10:00:00Z",
            "payload": {"writeId": "w", "tableId": "t", "companyId": "c1"},
        },
    ),
    (
        HandlerRequest,
        {"type": "webhook.handler.request", "v": 1, "payload": {"executionId": "x", "input": {}}},
    ),
]


def test_every_topic_carries_exactly_one_record_type() -> None:
    assert sorted(BY_TOPIC) == sorted(ALL_TOPICS)
    assert len({record.TYPE for record in RECORDS}) == len(RECORDS)
    assert len({record.TOPIC for record in RECORDS if record.TOPIC}) == len(ALL_TOPICS)


@pytest.mark.parametrize(("model", "raw"), EARLIER, ids=lambda value: getattr(value, "TYPE", ""))
def test_records_written_by_earlier_code_still_decode(model: type[Record], raw: dict[str, Any]) -> None:
    decoded = decode(json.dumps(raw).encode(), model)
    assert isinstance(decoded, model)
    again = decode(encode(decoded), model)
    assert again == decoded


def test_a_round_trip_keeps_every_field() -> None:
    result = DeliveryResult(
        entry_id="e",
        execution_id="x",
        webhook_id="w",
        company_id="c",
        attempt_number=2,
        status="FAILED",
        resource_type="TOOL",
        resource_id="r",
        duration_ms=12,
        error_message="boom",
        will_retry=True,
    )
    assert decode_from_topic("webhook.results", encode(result)) == result
    tick = ScheduleTick(
        event_id="e", run_id="r", company_id="c", scheduled_for=datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert decode(encode(tick), ScheduleTick).scheduled_for == datetime(2026, 1, 1, tzinfo=UTC)


def test_handler_requests_carry_the_request_itself() -> None:
    raw = json.loads(encode(HandlerRequest(request={"executionId": "x"})))
    assert raw["type"] == "webhook.handler.request" and raw["payload"] == {"executionId": "x"}


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        json.dumps({"type": "analytics.job", "v": 1, "payload": {"jobId": "j"}}).encode(),  # wrong topic
        json.dumps({"type": "table.write", "v": 2, "payload": {}}).encode(),  # from newer code
        json.dumps({"type": "table.write", "v": 1, "payload": {"writeId": "w"}}).encode(),  # malformed
    ],
)
def test_unreadable_records_are_refused_not_crashed_on(raw: bytes) -> None:
    with pytest.raises(UnknownRecord):
        decode_from_topic("table.appends", raw)


def test_an_old_version_is_upgraded_on_decode(monkeypatch: pytest.MonkeyPatch) -> None:
    class TableWriteV2(TableWriteRef):
        VERSION: ClassVar[int] = 2
        rows: int

    monkeypatch.setitem(records.UPGRADES, ("table.write", 1), lambda payload: {**payload, "rows": 0})
    old = encode(TableWriteRef(write_id="w", table_id="t", company_id="c"))
    assert decode(old, TableWriteV2) == TableWriteV2(write_id="w", table_id="t", company_id="c", rows=0)
    monkeypatch.delitem(records.UPGRADES, ("table.write", 1))
    with pytest.raises(UnknownRecord, match="cannot be upgraded"):
        decode(old, TableWriteV2)
