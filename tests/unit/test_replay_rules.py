"""Issue 24, replay: which executions a call replays, what of a stored request is sent again, and the pacing
schedule (core/webhooks/replay.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from pydantic import ValidationError

from core.webhooks.replay import (
    chunked,
    due_now,
    rest_after,
    schedule,
    select_by_ids,
    stored_request_part,
)
from schemas.replay import ReplayRequest

pytestmark = pytest.mark.unit

T0 = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)
REDACTED = "[REDACTED]"


def test_ids_are_replayed_oldest_first_once_each_and_the_rest_not_found() -> None:
    found = {"b": T0 + timedelta(seconds=2), "a": T0 + timedelta(seconds=5), "c": T0}
    selection = select_by_ids(["a", "x", "b", "a", "c", "y"], found, limit=2)
    assert selection.matched == 3
    assert selection.chosen == ["c", "b"]
    assert selection.not_found == ["x", "y"]


def test_equal_arrival_times_are_ordered_by_id() -> None:
    selection = select_by_ids(["z", "y"], {"z": T0, "y": T0}, limit=10)
    assert selection.chosen == ["y", "z"]


def test_stored_headers_lose_the_redacted_values() -> None:
    stored = json.dumps({"content-type": "application/json", "authorization": REDACTED, "x-sig": REDACTED})
    assert stored_request_part(stored, REDACTED) == {"content-type": "application/json"}
    assert stored_request_part(None, REDACTED) == {}
    assert stored_request_part("not json", REDACTED) == {}
    assert stored_request_part("[1, 2]", REDACTED) == {}


def test_a_schedule_starts_now_when_the_company_has_no_backlog() -> None:
    planned = schedule(None, T0, 3, rate_per_second=50)
    assert planned.slots == [T0, T0 + timedelta(milliseconds=20), T0 + timedelta(milliseconds=40)]
    assert planned.next_free == T0 + timedelta(milliseconds=60)


def test_a_schedule_follows_the_companys_earlier_replays() -> None:
    backlog_end = T0 + timedelta(seconds=10)
    planned = schedule(backlog_end, T0, 2, rate_per_second=4)
    assert planned.slots == [backlog_end, backlog_end + timedelta(milliseconds=250)]
    # Slots left unused in the past are not made up for with a burst.
    assert schedule(T0 - timedelta(hours=1), T0, 1, 4).slots == [T0]


def test_two_replays_of_a_company_together_keep_to_the_rate() -> None:
    first = schedule(None, T0, 100, rate_per_second=50)
    second = schedule(first.next_free, T0 + timedelta(milliseconds=1), 100, rate_per_second=50)
    slots = first.slots + second.slots
    gaps = {round((b - a).total_seconds(), 6) for a, b in pairwise(slots)}
    assert gaps == {0.02}


def test_a_schedule_needs_a_positive_rate() -> None:
    with pytest.raises(ValueError, match="positive"):
        schedule(None, T0, 1, 0)


def test_due_now_is_within_the_window() -> None:
    window = timedelta(milliseconds=500)
    assert due_now(T0 + window, T0, window)
    assert not due_now(T0 + window + timedelta(microseconds=1), T0, window)


def test_chunks_respect_count_and_size() -> None:
    sizes = [3, 3, 3, 10, 1, 1]
    assert list(chunked(sizes, lambda n: n, max_items=2, max_size=7)) == [[3, 3], [3], [10], [1, 1]]
    assert list(chunked([], lambda n: n, 2, 7)) == []


def test_the_request_names_ids_or_a_filter_not_both() -> None:
    ReplayRequest.model_validate({"webhookId": "w", "executionIds": ["e"]})
    ReplayRequest.model_validate({"webhookId": "w", "filter": {"status": "FAILED"}})
    for body in (
        {"webhookId": "w"},
        {"webhookId": "w", "executionIds": ["e"], "filter": {}},
        {"webhookId": "w", "executionIds": []},
        {"webhookId": "w", "executionIds": ["e"] * 10_001},
        {"webhookId": "w", "executionIds": ["e"], "limit": 10_001},
        {"webhookId": "w", "executionIds": ["e"], "limit": 0},
        {"webhookId": "w", "filter": {"status": "NOPE"}},
    ):
        with pytest.raises(ValidationError):
            ReplayRequest.model_validate(body)


def test_filter_times_carry_an_offset_and_are_ordered() -> None:
    flt = {"from": "2026-02-03T09:00:00+01:00", "to": "2026-02-03T09:30:00Z"}
    parsed = ReplayRequest.model_validate({"webhookId": "w", "filter": flt}).filter
    assert parsed is not None and parsed.from_ == datetime(2026, 2, 3, 8, 0, tzinfo=UTC)
    for bad in (
        {"from": "2026-02-03T09:00:00"},
        {"from": "2026-02-03T10:00:00Z", "to": "2026-02-03T09:00:00Z"},
    ):
        with pytest.raises(ValidationError):
            ReplayRequest.model_validate({"webhookId": "w", "filter": bad})


def test_null_optional_fields_mean_their_defaults() -> None:
    body = ReplayRequest.model_validate(
        {"webhookId": "w", "executionIds": ["e"], "dryRun": None, "limit": None}
    )
    assert body.dry_run is False and body.limit == 1_000


def test_replay_steps_rest_so_that_they_record_at_most_the_rate() -> None:
    assert rest_after(0.01, 16, 400.0) == pytest.approx(0.03)  # 16 at 400/s: 40 ms a step, 10 ms spent
    assert rest_after(0.05, 16, 400.0) == 0.0  # a step slower than the rate rests not at all ...
    assert rest_after(0.05, 16, 400.0, least=0.01) == 0.01  # ... unless it must rest a little in any case
    assert rest_after(0.01, 16, 400.0, least=0.01) == pytest.approx(0.03)
    assert rest_after(0.0, 0, 400.0) == 0.0
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="rate_per_second"):
            rest_after(0.01, 16, bad)
