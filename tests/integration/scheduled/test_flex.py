"""Issue 25 (flexibleTimeWindow) through HTTP: validated naming the field, stored and shown; nextFireAt and
/preview show the same moved times, the same for the same event every time, and OFF moves them back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.integration.scheduled.conftest import Scene, tool_event

pytestmark = pytest.mark.integration

HOURLY = {"pattern": "CRON", "cron": {"expression": "0 * * * ? *", "timezone": "UTC"}}


def instant(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def preview(scene: Scene, event_id: str) -> list[datetime]:
    answer = scene.ok("preview", {"scheduledEventId": event_id, "count": 5})
    return [instant(t) for t in answer["fireTimes"]]


def test_next_fire_and_preview_show_the_moved_times(scene: Scene) -> None:
    flex = {"mode": "FLEXIBLE", "maximumWindowInMinutes": 30}
    created = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=HOURLY, flexibleTimeWindow=flex))
    record = created["scheduledEvent"]
    assert record["flexibleTimeWindow"] == flex
    event_id = record["eventId"]
    times = preview(scene, event_id)
    assert instant(record["nextFireAt"]) == times[0]
    assert times == sorted(times) and preview(scene, event_id) == times
    for moved in times:
        nominal = moved.replace(minute=0, second=0)
        assert timedelta(0) <= moved - nominal < timedelta(minutes=30)
    off = scene.ok("update", {"scheduledEventId": event_id, "flexibleTimeWindow": {"mode": "OFF"}})
    record = off["scheduledEvent"]
    assert record["flexibleTimeWindow"] == {"mode": "OFF"}
    plain = preview(scene, event_id)
    assert all(t.minute == 0 and t.second == 0 for t in plain)
    assert instant(record["nextFireAt"]) == plain[0]


@pytest.mark.parametrize(
    ("flex", "message"),
    [
        (
            {"mode": "FLEXIBLE", "maximumWindowInMinutes": 1441},
            "flexibleTimeWindow.maximumWindowInMinutes: must be between 1 and 1440",
        ),
        (
            {"mode": "FLEXIBLE"},
            "flexibleTimeWindow: maximumWindowInMinutes is required when mode is FLEXIBLE",
        ),
    ],
)
def test_flexible_time_window_is_validated_naming_the_field(
    scene: Scene, flex: dict[str, object], message: str
) -> None:
    bad = scene.call("create", tool_event(scene.tool_id, flexibleTimeWindow=flex))
    assert bad.status_code == 400
    assert bad.json()["errors"] == [message]
