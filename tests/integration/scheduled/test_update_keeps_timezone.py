"""/update keeps what it is not sent: a ``cronExpression`` without ``timezone`` keeps the event's zone, a
``timezone`` alone keeps its expression or time exactly, and a refused ``at`` changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.integration.scheduled.conftest import Scene, tool_event

pytestmark = pytest.mark.integration


def once(at: str, timezone: str) -> dict[str, Any]:
    return {"pattern": "ONCE", "once": {"at": at, "timezone": timezone}}


def create(scene: Scene, **fields: Any) -> str:
    return str(scene.ok("create", tool_event(scene.tool_id, **fields))["eventId"])


def update(scene: Scene, event_id: str, **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = scene.ok("update", {"scheduledEventId": event_id, **fields})["scheduledEvent"]
    assert event == scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]  # what was stored
    return event


def local_fire(event: dict[str, Any], timezone: str) -> datetime:
    """The next fire time on the zone's wall clock (the interface's timestamps are UTC without offset)."""
    return datetime.fromisoformat(event["nextFireAt"]).replace(tzinfo=UTC).astimezone(ZoneInfo(timezone))


def test_a_cron_expression_without_timezone_keeps_the_events_zone(scene: Scene) -> None:
    event_id = create(scene)  # CRON 0 12 * * ? * in Europe/Berlin
    event = update(scene, event_id, cronExpression="cron(0 8 ? * MON-FRI *)")
    assert event["scheduleSpec"] == {
        "pattern": "CRON",
        "cron": {"expression": "0 8 ? * MON-FRI *", "timezone": "Europe/Berlin"},
    }
    assert event["timezone"] == "Europe/Berlin" and event["cronExpression"] == "cron(0 8 ? * MON-FRI *)"
    fire = local_fire(event, "Europe/Berlin")
    assert (fire.hour, fire.minute) == (8, 0) and fire.isoweekday() <= 5

    # An empty timezone is no timezone: the zone is kept, not reset to UTC.
    event = update(scene, event_id, cronExpression="cron(0 7 * * ? *)", timezone="")
    assert event["scheduleSpec"]["cron"] == {"expression": "0 7 * * ? *", "timezone": "Europe/Berlin"}
    assert local_fire(event, "Europe/Berlin").hour == 7

    # Sent with it, the timezone applies.
    event = update(scene, event_id, cronExpression="cron(0 7 * * ? *)", timezone="Asia/Kolkata")
    assert event["scheduleSpec"]["cron"] == {"expression": "0 7 * * ? *", "timezone": "Asia/Kolkata"}
    assert local_fire(event, "Asia/Kolkata").hour == 7


def test_an_at_expression_without_timezone_keeps_the_events_zone(scene: Scene) -> None:
    event_id = create(scene, scheduleSpec=once("2031-05-01T09:30:00", "Asia/Tokyo"))
    event = update(scene, event_id, cronExpression="at(2031-06-01T18:00:00)")
    assert event["scheduleSpec"] == once("2031-06-01T18:00:00", "Asia/Tokyo")
    assert event["timezone"] == "Asia/Tokyo"
    assert event["nextFireAt"] == "2031-06-01T09:00:00.000"

    # From ONCE to CRON, the ONCE event's zone carries over.
    event = update(scene, event_id, cronExpression="0 6 * * ? *")
    assert event["scheduleSpec"]["cron"] == {"expression": "0 6 * * ? *", "timezone": "Asia/Tokyo"}
    assert local_fire(event, "Asia/Tokyo").hour == 6


def test_an_every_event_has_no_zone_to_keep(scene: Scene) -> None:
    event_id = create(scene, scheduleSpec={"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES"}})
    event = update(scene, event_id, cronExpression="cron(0 8 * * ? *)")
    assert event["scheduleSpec"]["cron"] == {"expression": "0 8 * * ? *", "timezone": "UTC"}


def test_a_timezone_alone_keeps_the_expression_and_the_time_exactly(scene: Scene) -> None:
    cron_id = create(scene, scheduleSpec=None, cronExpression="cron(15 9 ? * 2#1 *)", timezone="Asia/Kolkata")
    event = update(scene, cron_id, timezone="America/New_York")
    assert event["scheduleSpec"] == {
        "pattern": "CRON",
        "cron": {"expression": "15 9 ? * 2#1 *", "timezone": "America/New_York"},
    }
    fire = local_fire(event, "America/New_York")
    assert (fire.hour, fire.minute, fire.isoweekday()) == (9, 15, 1) and fire.day <= 7

    # The at(...) form shows whole seconds; moving the event must not re-read it and drop the fraction.
    once_id = create(scene, scheduleSpec=once("2031-05-01T09:30:00.250", "Asia/Tokyo"))
    event = update(scene, once_id, timezone="Europe/Berlin")
    assert event["scheduleSpec"] == once("2031-05-01T09:30:00.250000", "Europe/Berlin")
    assert event["cronExpression"] == "at(2031-05-01T09:30:00)"
    assert event["nextFireAt"] == "2031-05-01T07:30:00.250"

    # An empty timezone alone changes nothing.
    assert update(scene, once_id, timezone="  ")["scheduleSpec"] == event["scheduleSpec"]


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"scheduleSpec": once("2031-06-01 18:00:00", "UTC")}, "is not an ISO-8601 local datetime"),
        ({"scheduleSpec": once("2031-06-01", "UTC")}, "is not an ISO-8601 local datetime"),
        ({"scheduleSpec": once("2031-06-01T18:00", "UTC")}, "is not an ISO-8601 local datetime"),
        ({"scheduleSpec": once("2031-06-01T18:00:00Z", "UTC")}, "without offset"),
        ({"scheduleSpec": once("2031-06-01T18:00:00+09:00", "UTC")}, "without offset"),
        ({"cronExpression": "at(2031-06-01 18:00:00)"}, "use at(yyyy-mm-ddThh:mm:ss)"),
        ({"cronExpression": "at(2031-06-01T18:00:00Z)"}, "use at(yyyy-mm-ddThh:mm:ss)"),
    ],
)
def test_a_refused_at_answers_in_the_routers_format_and_changes_nothing(
    scene: Scene, change: dict[str, Any], fragment: str
) -> None:
    event_id = create(scene, scheduleSpec=once("2031-05-01T09:30:00", "Asia/Tokyo"))
    before = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    for operation, body in [
        ("update", {"scheduledEventId": event_id, **change}),
        ("create", tool_event(scene.tool_id, **{"scheduleSpec": None, **change})),
    ]:
        answer = scene.call(operation, body)
        assert answer.status_code == 400, (operation, answer.text)
        errors = answer.json()["errors"]
        assert len(errors) == 1 and fragment in errors[0], (operation, errors)
        assert set(answer.json()) == {"errors"}
    assert scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"] == before
    assert len(scene.ok("all", {})["ownedEvents"]) == 1
