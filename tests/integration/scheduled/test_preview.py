"""/clients/scheduled-events/preview over real HTTP: the fire times the scheduler's own next-fire function
gives, DST gaps and repeats included, for each schedule form and a stored event; its tenancy and refusals."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from core.schedules.spec import next_fire, parse_schedule_expression
from schemas.scheduled.schedules import CronSpec, EverySpec, OnceSpec, load_schedule_spec
from sinks.db.scheduled import events as scheduled_events
from tests.integration.scheduled.conftest import Scene, tool_event

pytestmark = pytest.mark.integration

Spec = EverySpec | CronSpec | OnceSpec


def preview(scene: Scene, key: str | None = None, **body: Any) -> dict[str, Any]:
    return scene.ok("preview", body, key=key)


def firing(spec: Spec, start: str, count: int, anchor: datetime | None = None) -> list[datetime]:
    """What the scheduler fires: each time from next_fire, strictly after the one before (as claim_due)."""
    moment = datetime.fromisoformat(start).astimezone(UTC)
    anchor = anchor or moment
    times: list[datetime] = []
    while len(times) < count and (fire := next_fire(spec, moment, anchor=anchor)) is not None:
        times.append(fire)
        moment = fire
    return times


def instants(texts: list[str]) -> list[datetime]:
    parsed = [datetime.fromisoformat(text) for text in texts]
    assert all(moment.utcoffset() is not None for moment in parsed), "every time carries its offset"
    return [moment.astimezone(UTC) for moment in parsed]


def test_cron_across_the_march_gap_in_berlin(scene: Scene) -> None:
    """29 March 2026, 02:00 CET becomes 03:00 CEST: 02:30 does not exist, so it is skipped, as it fires."""
    start = "2026-03-29T00:00:00+01:00"
    hourly = preview(
        scene, cronExpression="cron(30 * * * ? *)", timezone="Europe/Berlin", count=4, **{"from": start}
    )
    assert hourly["fireTimes"] == [
        "2026-03-29T00:30:00+01:00",
        "2026-03-29T01:30:00+01:00",
        "2026-03-29T03:30:00+02:00",
        "2026-03-29T04:30:00+02:00",
    ]
    assert hourly["timezone"] == "Europe/Berlin"
    spec = parse_schedule_expression("cron(30 * * * ? *)", "Europe/Berlin")
    assert instants(hourly["fireTimes"]) == firing(spec, start, 4)

    daily_start = "2026-03-27T12:00:00+01:00"
    daily = preview(
        scene,
        scheduleSpec={"pattern": "CRON", "cron": {"expression": "30 2 * * ? *", "timezone": "Europe/Berlin"}},
        count=4,
        **{"from": daily_start},
    )
    assert daily["fireTimes"] == [
        "2026-03-28T02:30:00+01:00",
        "2026-03-30T02:30:00+02:00",  # no 29 March: its 02:30 lies in the gap
        "2026-03-31T02:30:00+02:00",
        "2026-04-01T02:30:00+02:00",
    ]
    daily_spec = load_schedule_spec(
        {"pattern": "CRON", "cron": {"expression": "30 2 * * ? *", "timezone": "Europe/Berlin"}}
    )
    assert instants(daily["fireTimes"]) == firing(daily_spec, daily_start, 4)


def test_cron_across_the_october_repeat_in_berlin(scene: Scene) -> None:
    """25 October 2026, 03:00 CEST becomes 02:00 CET: 02:00-02:59 happens twice and fires once, in CEST."""
    start = "2026-10-25T00:00:00+02:00"
    expression = "cron(0/30 1-3 * * ? *)"
    answer = preview(scene, cronExpression=expression, timezone="Europe/Berlin", count=7, **{"from": start})
    assert answer["fireTimes"] == [
        "2026-10-25T01:00:00+02:00",
        "2026-10-25T01:30:00+02:00",
        "2026-10-25T02:00:00+02:00",
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T03:00:00+01:00",  # 02:00 and 02:30 CET are not repeated
        "2026-10-25T03:30:00+01:00",
        "2026-10-26T01:00:00+01:00",
    ]
    assert instants(answer["fireTimes"]) == firing(
        parse_schedule_expression(expression, "Europe/Berlin"), start, 7
    )
    # A ONCE in the repeated hour is its first occurrence; one in the gap is the first instant after it.
    repeated = preview(
        scene,
        cronExpression="at(2026-10-25T02:30:00)",
        timezone="Europe/Berlin",
        **{"from": "2026-10-01T00:00:00Z"},
    )
    in_gap = preview(
        scene,
        scheduleSpec={"pattern": "ONCE", "once": {"at": "2026-03-29T02:30:00", "timezone": "Europe/Berlin"}},
        **{"from": "2026-03-01T00:00:00Z"},
    )
    assert in_gap["fireTimes"] == ["2026-03-29T03:00:00+02:00"]
    assert repeated["fireTimes"] == ["2026-10-25T02:30:00+02:00"]


def test_rate_and_every_step_from_from(scene: Scene) -> None:
    """An unsaved EVERY anchors at ``from``, as /create anchors at its own now: the first time is one period
    later, the grid keeps the anchor's fraction of a second, and no zone applies (shown in UTC)."""
    start = "2026-03-29T00:00:00.250+01:00"
    rate = preview(scene, cronExpression="rate(90 minutes)", count=3, **{"from": start})
    assert rate == {
        "fireTimes": [
            "2026-03-29T00:30:00.250000+00:00",
            "2026-03-29T02:00:00.250000+00:00",
            "2026-03-29T03:30:00.250000+00:00",
        ],
        "timezone": "UTC",
        "errors": [],
    }
    every = preview(
        scene,
        scheduleSpec={"pattern": "EVERY", "every": {"value": 90, "unit": "MINUTES"}},
        count=3,
        **{"from": start},
    )
    assert every == rate
    assert instants(rate["fireTimes"]) == firing(
        parse_schedule_expression("rate(90 minutes)", None), start, 3
    )
    # A timezone sent with rate(...) is ignored, as /create ignores it.
    zoned = preview(
        scene, cronExpression="rate(90 minutes)", timezone="Asia/Kolkata", count=3, **{"from": start}
    )
    assert zoned == rate


def test_once_past_and_future(scene: Scene) -> None:
    future = preview(scene, cronExpression="at(2030-01-01T09:00:00)", timezone="Europe/Berlin", count=5)
    assert future["fireTimes"] == ["2030-01-01T09:00:00+01:00"]  # a ONCE has a single time, whatever count
    past = preview(
        scene, scheduleSpec={"pattern": "ONCE", "once": {"at": "2020-01-01T09:00:00", "timezone": "UTC"}}
    )
    assert past == {"fireTimes": [], "timezone": "UTC", "errors": []}
    # Past relative to from: the time itself is not after it.
    at_from = preview(
        scene, cronExpression="at(2030-01-01T09:00:00)", timezone="UTC", **{"from": "2030-01-01T09:00:00Z"}
    )
    assert at_from["fireTimes"] == []


def test_default_count_from_and_paging(scene: Scene) -> None:
    ten = preview(scene, cronExpression="cron(0 12 * * ? *)", timezone="Asia/Kolkata")
    assert len(ten["fireTimes"]) == 10 and all(t.endswith("T12:00:00+05:30") for t in ten["fireTimes"])
    assert (
        preview(scene, cronExpression="cron(0 12 * * ? *)", count=None, **{"from": None})["timezone"] == "UTC"
    )
    start = "2026-10-24T00:00:00Z"
    body = {"cronExpression": "cron(0 * * * ? *)", "timezone": "Europe/Berlin"}
    six = preview(scene, count=6, **body, **{"from": start})["fireTimes"]
    first = preview(scene, count=3, **body, **{"from": start})["fireTimes"]
    # A time sent back as from names that exact instant: the next page starts after it.
    second = preview(scene, count=3, **body, **{"from": first[-1]})["fireTimes"]
    assert first + second == six
    exhausted = preview(
        scene, cronExpression="cron(0 0 1 1 ? 2027)", count=5, **{"from": "2026-06-01T00:00:00Z"}
    )
    assert exhausted["fireTimes"] == ["2027-01-01T00:00:00+00:00"]


def test_a_stored_event_by_id(scene: Scene) -> None:
    """A stored event previews its own schedule: its zone, its EVERY anchor; any key of the company may ask
    (no access to the target is needed: nothing runs); nothing about the event changes."""
    cron_id = scene.ok(
        "create",
        tool_event(
            scene.tool_id,
            scheduleSpec={
                "pattern": "CRON",
                "cron": {"expression": "30 2 * * ? *", "timezone": "Europe/Berlin"},
            },
        ),
    )["eventId"]
    before = scene.ok("get", {"scheduledEventId": cron_id})["scheduledEvent"]
    created = before["createdAt"] + "Z"
    upcoming = preview(scene, key=scene.member_key, scheduledEventId=cron_id, count=3, **{"from": created})
    assert upcoming["timezone"] == "Europe/Berlin"
    # The first time after the event's creation is the time the scheduler has queued next.
    assert instants(upcoming["fireTimes"])[0] == datetime.fromisoformat(before["nextFireAt"]).replace(
        tzinfo=UTC
    )
    start = "2026-03-27T12:00:00+01:00"
    across = preview(scene, key=scene.member_key, scheduledEventId=cron_id, count=3, **{"from": start})
    assert across["fireTimes"] == [
        "2026-03-28T02:30:00+01:00",
        "2026-03-30T02:30:00+02:00",
        "2026-03-31T02:30:00+02:00",
    ]
    with scene.db.sessions() as session:
        row = scheduled_events.get(session, scene.company_id, cron_id)
        assert row is not None
        stored_spec = load_schedule_spec(json.loads(row.spec_json))
    assert instants(across["fireTimes"]) == firing(stored_spec, start, 3)
    assert scene.ok("get", {"scheduledEventId": cron_id})["scheduledEvent"] == before

    every_id = scene.ok(
        "create",
        tool_event(
            scene.tool_id, scheduleSpec={"pattern": "EVERY", "every": {"value": 15, "unit": "MINUTES"}}
        ),
    )["eventId"]
    anchor = datetime(2026, 1, 1, 10, 3, 17, 500000, tzinfo=UTC)
    with scene.db.sessions.begin() as session:
        scheduled_events.set_next_fire(session, scene.company_id, every_id, None, anchor)
    grid = preview(scene, scheduledEventId=every_id, count=3, **{"from": "2026-03-29T00:00:00Z"})
    assert grid == {
        "fireTimes": [
            "2026-03-29T00:03:17.500000+00:00",
            "2026-03-29T00:18:17.500000+00:00",
            "2026-03-29T00:33:17.500000+00:00",
        ],
        "timezone": "UTC",
        "errors": [],
    }
    every_spec = load_schedule_spec({"pattern": "EVERY", "every": {"value": 15, "unit": "MINUTES"}})
    assert instants(grid["fireTimes"]) == firing(every_spec, "2026-03-29T00:00:00Z", 3, anchor=anchor)
    # The grid starts at its anchor, however early from is; a disabled event still previews its schedule.
    scene.ok("toggle", {"scheduledEventId": every_id, "enabled": False})
    early = preview(scene, scheduledEventId=every_id, count=1, **{"from": "2025-06-01T00:00:00Z"})
    assert early["fireTimes"] == ["2026-01-01T10:18:17.500000+00:00"]


def test_another_companys_event_is_not_found_as_get_answers(scene: Scene) -> None:
    theirs = scene.ok("create", tool_event(scene.foreign_tool_id), key=scene.other_key)["eventId"]
    assert preview(scene, key=scene.other_key, scheduledEventId=theirs, count=1)["fireTimes"]
    refused = scene.call("preview", {"scheduledEventId": theirs})
    got = scene.call("get", {"scheduledEventId": theirs})
    assert refused.status_code == got.status_code == 404
    assert refused.json() == got.json() == {"errors": ["Scheduled event not found"]}
    missing = scene.call("preview", {"scheduledEventId": "0" * 32})
    assert missing.status_code == 404 and missing.json() == refused.json()
    scene.ok("delete", {"scheduledEventId": theirs}, key=scene.other_key)
    deleted = scene.call("preview", {"scheduledEventId": theirs}, key=scene.other_key)
    assert deleted.status_code == 404 and deleted.json() == refused.json()


CRON_SPEC = {"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "UTC"}}
NO_OFFSET = (
    "from: '2026-03-29T02:30:00' has no offset and a local time is refused: add Z or the offset, "
    "e.g. 2026-03-29T02:30:00Z (the schedule's zone applies to its fire times, not to from)"
)
FORM = "write yyyy-mm-ddThh:mm:ss (optionally .ffffff) then Z or an offset ±hh:mm, e.g. 2027-03-26T12:00:00Z"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"scheduleSpec": CRON_SPEC, "count": 0}, "count: Input should be greater than or equal to 1"),
        ({"scheduleSpec": CRON_SPEC, "count": 101}, "count: Input should be less than or equal to 100"),
        ({"scheduleSpec": CRON_SPEC, "count": "5"}, "count: Input should be a valid integer"),
        ({"scheduleSpec": CRON_SPEC, "count": 2.5}, "count: Input should be a valid integer"),
        (
            {"scheduleSpec": CRON_SPEC, "from": "next tuesday"},
            f"from: 'next tuesday' is not an ISO-8601 timestamp: {FORM}",
        ),
        ({"scheduleSpec": CRON_SPEC, "from": "2026-03-29T02:30:00"}, NO_OFFSET),
        (
            {"scheduleSpec": CRON_SPEC, "from": "2026-02-30T00:00:00Z"},
            "from: '2026-02-30T00:00:00Z' is not an ISO-8601 timestamp: no such date, time or offset",
        ),
        (
            {"scheduleSpec": CRON_SPEC, "from": 1774742400},
            f"from: must be an ISO-8601 timestamp string: {FORM}",
        ),
        (
            {"scheduleSpec": CRON_SPEC, "from": "1969-12-31T23:00:00Z"},
            "from: must be between the years 1970 and 2199",
        ),
        ({}, "body: send one of scheduleSpec, cronExpression (with timezone) or scheduledEventId"),
        (
            {"count": 5, "timezone": "UTC"},
            "body: send one of scheduleSpec, cronExpression (with timezone) or scheduledEventId",
        ),
        (
            {"scheduleSpec": CRON_SPEC, "cronExpression": "rate(5 minutes)"},
            "body: send only one of scheduleSpec, cronExpression and scheduledEventId, not scheduleSpec and "
            "cronExpression",
        ),
        (
            {"scheduleSpec": CRON_SPEC, "cronExpression": "rate(5 minutes)", "scheduledEventId": "0" * 32},
            "body: send only one of scheduleSpec, cronExpression and scheduledEventId, not scheduleSpec and "
            "cronExpression and scheduledEventId",
        ),
        (
            {"scheduleSpec": CRON_SPEC, "timezone": "Europe/Berlin"},
            "body: timezone goes with cronExpression only: scheduleSpec and a stored event carry their own",
        ),
        (
            {"cronExpression": "cron(0 12 * * *)"},
            "cronExpression: Invalid cron expression '0 12 * * *': expected 6 fields (minute hour "
            "day-of-month month day-of-week year), got 5: AWS cron expressions need a year field, e.g. '*'",
        ),
        (
            {"cronExpression": "every day at noon", "timezone": "UTC"},
            "cronExpression: Invalid schedule expression 'every day at noon': use cron(...), rate(...) "
            "or at(...)",
        ),
        (
            {"cronExpression": "rate(1 hours)"},
            "cronExpression: Invalid rate expression 'rate(1 hours)': write rate(1 hour) (singular unit "
            "for 1, plural otherwise)",
        ),
        (
            {"cronExpression": "cron(0 12 * * ? *)", "timezone": "Mars/Olympus"},
            "timezone: Unknown timezone 'Mars/Olympus': use an IANA name such as 'Europe/Berlin' or 'UTC'",
        ),
        (
            {"scheduleSpec": {"pattern": "CRON", "cron": {"expression": "0 25 * * ? *", "timezone": "UTC"}}},
            "scheduleSpec.cron.expression: Invalid cron expression '0 25 * * ? *': hour field: invalid token "
            "'25': 25 is out of range 0-23",
        ),
        (
            {"scheduleSpec": {"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "Mars"}}},
            "scheduleSpec.CRON.cron.timezone: Unknown timezone 'Mars': use an IANA name such as "
            "'Europe/Berlin' or 'UTC'",
        ),
        ({"scheduledEventId": ""}, "scheduledEventId: String should have at least 1 character"),
        (
            {"scheduleSpec": CRON_SPEC, "until": "2027-01-01T00:00:00Z"},
            "until: Extra inputs are not permitted",
        ),
    ],
)
def test_refusals_name_the_field(scene: Scene, body: dict[str, Any], message: str) -> None:
    answer = scene.call("preview", body)
    assert answer.status_code == 400, answer.text
    assert answer.json() == {"errors": [message]}
