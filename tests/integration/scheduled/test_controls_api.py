"""Issue 25 (scheduler controls) over real HTTP, without a worker: startDate, endDate and
actionAfterCompletion on /create, /update, /get, /all; /pause and its nextFireAt and /preview; /run-now's run,
its cap, and both operations' tenancy (another company's event is not found, exactly as /get answers)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from tests.integration.scheduled.conftest import Scene, tool_event

pytestmark = pytest.mark.integration

HOURLY = {"pattern": "CRON", "cron": {"expression": "0 * * * ? *", "timezone": "UTC"}}


def iso(moment: datetime) -> str:
    return moment.isoformat()


def shown(moment: datetime) -> str:
    """As the record shows an instant: UTC without an offset, to the millisecond."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")


def hour(offset_hours: int) -> datetime:
    """A whole hour this many hours from now (the next one for 1)."""
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=offset_hours)


def get(scene: Scene, event_id: str, key: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = scene.ok("get", {"scheduledEventId": event_id}, key=key)["scheduledEvent"]
    return result


def test_dates_are_stored_in_utc_shown_and_bound_next_fire_at_and_preview(scene: Scene) -> None:
    start, end = hour(5), hour(8)
    body = tool_event(
        scene.tool_id,
        scheduleSpec=HOURLY,
        # Any offset names the instant; it is stored and shown in UTC.
        startDate=start.astimezone(timezone(timedelta(hours=5, minutes=30))).isoformat(),
        endDate=end.isoformat().replace("+00:00", "Z"),
        actionAfterCompletion="DELETE",
    )
    created = scene.ok("create", body)["scheduledEvent"]
    assert created["startDate"] == shown(start) and created["endDate"] == shown(end)
    assert created["actionAfterCompletion"] == "DELETE" and created["nextFireAt"] == shown(start)
    assert get(scene, created["eventId"]) == created
    assert scene.ok("all", {})["ownedEvents"] == [created]
    fires = scene.ok("preview", {"scheduledEventId": created["eventId"], "count": 10})["fireTimes"]
    assert [datetime.fromisoformat(text) for text in fires] == [start + timedelta(hours=k) for k in range(4)]

    plain = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY))["scheduledEvent"]
    assert plain["actionAfterCompletion"] == "NONE" and plain["nextFireAt"] == shown(hour(1))
    assert not {"startDate", "endDate", "pausedUntil"} & set(plain)


def test_update_changes_the_window_and_keeps_what_it_does_not_send(scene: Scene) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY, startDate=iso(hour(3))))[
        "eventId"
    ]
    moved = scene.ok("update", {"scheduledEventId": event_id, "startDate": iso(hour(6))})["scheduledEvent"]
    assert moved["nextFireAt"] == shown(hour(6))
    ended = scene.ok("update", {"scheduledEventId": event_id, "endDate": iso(hour(7))})["scheduledEvent"]
    assert ended["startDate"] == shown(hour(6)) and ended["endDate"] == shown(hour(7))
    assert ended["actionAfterCompletion"] == "NONE"
    deleting = scene.ok("update", {"scheduledEventId": event_id, "actionAfterCompletion": "DELETE"})
    assert deleting["scheduledEvent"]["actionAfterCompletion"] == "DELETE"
    assert deleting["scheduledEvent"]["endDate"] == shown(hour(7))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"startDate": "START", "endDate": "END_BEFORE"}, "endDate: must be after startDate"),
        ({"endDate": "PAST"}, "endDate: must be in the future"),
        ({"startDate": "2027-01-01T00:00:00"}, "startDate: '2027-01-01T00:00:00' has no offset"),
        ({"endDate": "tomorrow"}, "endDate: 'tomorrow' is not an ISO-8601 timestamp"),
        ({"actionAfterCompletion": "ARCHIVE"}, "actionAfterCompletion: Input should be 'NONE' or 'DELETE'"),
        ({"startDate": "START_PLUS_1", "endDate": "START_PLUS_30"}, "endDate: the schedule has no fire left"),
    ],
)
def test_bad_dates_are_400_naming_the_field(scene: Scene, fields: dict[str, str], message: str) -> None:
    values = {
        "START": iso(hour(3)),
        "END_BEFORE": iso(hour(2)),
        "PAST": iso(datetime.now(UTC) - timedelta(minutes=1)),
        "START_PLUS_1": iso(hour(3) + timedelta(minutes=1)),
        "START_PLUS_30": iso(hour(3) + timedelta(minutes=30)),
    }
    body = tool_event(scene.tool_id, scheduleSpec=HOURLY, **{k: values.get(v, v) for k, v in fields.items()})
    answer = scene.call("create", body)
    assert answer.status_code == 400, answer.text
    (error,) = answer.json()["errors"]
    assert error.startswith(message), error


def test_a_once_outside_its_window_is_refused(scene: Scene) -> None:
    at = hour(2).replace(tzinfo=None).isoformat()
    once = {"pattern": "ONCE", "once": {"at": at, "timezone": "UTC"}}
    answer = scene.call("create", tool_event(scene.tool_id, scheduleSpec=once, startDate=iso(hour(3))))
    assert answer.status_code == 400
    assert answer.json()["errors"][0].startswith("startDate: the schedule has no fire left")


def test_pause_bounds_next_fire_at_and_preview_and_resumes(scene: Scene) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY))["eventId"]
    until = hour(3) - timedelta(minutes=20)
    paused = scene.ok("pause", {"scheduledEventId": event_id, "until": iso(until)})
    assert paused == {
        "eventId": event_id,
        "pausedUntil": shown(until),
        "nextFireAt": shown(hour(3)),
        "errors": [],
    }
    record = get(scene, event_id)
    assert record["pausedUntil"] == shown(until) and record["nextFireAt"] == shown(hour(3))
    fires = scene.ok("preview", {"scheduledEventId": event_id, "count": 2})["fireTimes"]
    assert [datetime.fromisoformat(text) for text in fires] == [hour(3), hour(4)]
    # A pause ending exactly on a fire time lets that fire happen.
    on_time = scene.ok("pause", {"scheduledEventId": event_id, "until": iso(hour(2))})
    assert on_time["nextFireAt"] == shown(hour(2))
    resumed = scene.ok("pause", {"scheduledEventId": event_id, "until": None})
    assert resumed == {"eventId": event_id, "nextFireAt": shown(hour(1)), "errors": []}
    assert "pausedUntil" not in get(scene, event_id)


@pytest.mark.parametrize(
    ("until", "message"),
    [
        ("PAST", "until: must be in the future"),
        ("2027-01-01T00:00:00", "until: '2027-01-01T00:00:00' has no offset"),
        ("AFTER_END", "until: the schedule has no fire left"),
    ],
)
def test_bad_pauses_are_400(scene: Scene, until: str, message: str) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY, endDate=iso(hour(2))))[
        "eventId"
    ]
    values = {
        "PAST": iso(datetime.now(UTC) - timedelta(seconds=1)),
        "AFTER_END": iso(hour(2) + timedelta(minutes=1)),
    }
    answer = scene.call("pause", {"scheduledEventId": event_id, "until": values.get(until, until)})
    assert answer.status_code == 400, answer.text
    assert answer.json()["errors"][0].startswith(message)
    assert "pausedUntil" not in get(scene, event_id)


def test_another_companys_event_is_not_found_for_pause_and_run_now(scene: Scene) -> None:
    """The hostile company names the victim's event id: 404 exactly as /get, and nothing changes or runs."""
    victim = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY))["eventId"]
    before = get(scene, victim)
    until = iso(hour(5))
    for operation, body in (
        ("get", {"scheduledEventId": victim}),
        ("pause", {"scheduledEventId": victim, "until": until}),
        ("run-now", {"scheduledEventId": victim}),
        ("pause", {"scheduledEventId": "0" * 32, "until": until}),
        ("run-now", {"scheduledEventId": "0" * 32}),
    ):
        answer = scene.call(operation, body, key=scene.other_key)
        assert (answer.status_code, answer.json()) == (404, {"errors": ["Scheduled event not found"]})
    assert get(scene, victim) == before
    assert scene.ok("runs", {"scheduledEventId": victim})["runs"] == []


def test_run_now_stores_a_run_without_moving_the_schedule_up_to_its_cap(scene: Scene) -> None:
    """No worker here: the runs stay QUEUED, so the eleventh /run-now finds ten still pending."""
    event_id = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY, enabled=False))["eventId"]
    before = get(scene, event_id)
    run_ids = []
    for _ in range(10):
        answer = scene.ok("run-now", {"scheduledEventId": event_id})
        assert answer["success"] is True and len(answer["runId"]) == 32
        run_ids.append(answer["runId"])
    runs = scene.ok("runs", {"scheduledEventId": event_id, "size": 100})["runs"]
    assert sorted(run["runId"] for run in runs) == sorted(run_ids)
    assert {(run["status"], run["trigger"], run["attemptNumber"]) for run in runs} == {
        ("QUEUED", "RUN_NOW", 1)
    }
    refused = scene.call("run-now", {"scheduledEventId": event_id})
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "5"
    assert refused.json()["errors"] == [
        "Too many /run-now runs of this event have not ended (10); retry once one has ended"
    ]
    after = get(scene, event_id)
    assert after == before  # the grid did not move (and a disabled event may be run now)
