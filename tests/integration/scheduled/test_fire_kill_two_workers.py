"""Two workers share the scheduled fires; SIGKILL the one started first (normally the group's leader, which
claims the fires) while events fall due: the survivor takes its work over and every scheduled time reaches
the handler exactly once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.models import ScheduledEventRun
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db
from tests.fixtures.two_workers import (
    PostgresWorker,
    postgres_settings,
    start_both,
    wait_until,
)
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import fires, handler_tool, runs

pytestmark = pytest.mark.integration

EVENTS, PER_SECOND = 30, 3
# Both workers give a lost run this long (plus SVC_PROCESSING_GRACE_SECONDS) before another attempt: longer
# than the victim lives with a claimed run, so only its death hands a run to another attempt.
ACTION_TIMEOUT = "10"


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    """Several workers need PostgreSQL: this module's stack runs on it whatever SVC_TEST_DATABASE says."""
    return postgres_settings(tmp_path / "data", kafka_bootstrap)


@pytest.fixture
def workers(
    kafka_settings: Settings, ingress_db: Db, tmp_path: Path
) -> Iterator[tuple[PostgresWorker, PostgresWorker]]:
    """(victim, survivor). The victim waits a minute between claiming a run and acting on it, so the kill
    always lands between the two for its runs (as in test_firing's single-worker test): a kill after the
    handler answered but before the run was marked finished would call the handler again, which the
    at-least-once design allows (the handler gets the same executionId) and which this test must not
    count as a double. It starts first, so it is the group's leader unless a rebalance moves it."""
    victim = PostgresWorker(
        kafka_settings,
        tmp_path / "victim.log",
        "victim",
        SVC_SCHEDULER_PAUSE_BEFORE_ACTION_SECONDS="60",
        SVC_SCHEDULER_ACTION_TIMEOUT_SECONDS=ACTION_TIMEOUT,
    )
    survivor = PostgresWorker(
        kafka_settings,
        tmp_path / "survivor.log",
        "survivor",
        SVC_SCHEDULER_ACTION_TIMEOUT_SECONDS=ACTION_TIMEOUT,
    )
    try:
        start_both(victim, survivor)
        yield victim, survivor
    finally:
        victim.kill()
        survivor.stop()


def statuses(db: Db, event_ids: list[str]) -> Counter[str]:
    """Run statuses of the events, read from the DB (one query instead of a /runs call per event)."""
    with db.sessions() as session:
        found = session.scalars(
            select(ScheduledEventRun.status).where(ScheduledEventRun.event_id.in_(event_ids))
        )
        return Counter(found)


def running(db: Db, event_ids: list[str]) -> set[str]:
    with db.sessions() as session:
        return set(
            session.scalars(
                select(ScheduledEventRun.id).where(
                    ScheduledEventRun.event_id.in_(event_ids), ScheduledEventRun.status == "RUNNING"
                )
            )
        )


def utc(stamp: str) -> datetime:
    """The interface's timestamps are UTC without an offset."""
    return datetime.fromisoformat(stamp).replace(tzinfo=UTC)


def test_killing_one_of_two_workers_fires_every_scheduled_time_once(
    scene: Scene, handler: RecordingHandler, workers: tuple[PostgresWorker, PostgresWorker]
) -> None:
    victim, survivor = workers
    tool_id = handler_tool(scene, handler)
    # Whole seconds (the ONCE time has no fraction), PER_SECOND events each second, the first a few seconds
    # out so that creating all of them on a busy machine ends before the first falls due.
    first = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=8)
    event_ids: list[str] = []
    for i in range(EVENTS):
        at = (first + timedelta(seconds=i // PER_SECOND)).replace(tzinfo=None)
        spec = {"pattern": "ONCE", "once": {"at": at.isoformat(), "timezone": "UTC"}}
        event_ids.append(scene.ok("create", tool_event(tool_id, scheduleSpec=spec))["eventId"])

    # Mid-way: half the runs are claimed, the survivor has acted on some and the victim holds some.
    def mid_way() -> bool:
        now = statuses(scene.db, event_ids)
        claimed = now["SUCCEEDED"] + now["RUNNING"] >= EVENTS // 2
        return claimed and len(handler.calls) >= 3 and len(running(scene.db, event_ids)) >= 2

    wait_until(mid_way, 90, "the two workers did not both take runs")
    victim.kill()
    killed_at = datetime.now(UTC)
    at_kill = statuses(scene.db, event_ids)
    held = running(scene.db, event_ids)
    calls_at_kill = len(handler.calls)
    assert survivor.process is not None and survivor.process.poll() is None, "the survivor died"

    # The survivor leads after the broker's session timeout, then claims the rest and retries the held runs.
    def settled() -> bool:
        now = statuses(scene.db, event_ids)
        return sum(now.values()) >= EVENTS and not now["QUEUED"] and not now["RUNNING"]

    wait_until(settled, 90, "not every event's run ended")
    history = {event_id: runs(scene, event_id) for event_id in event_ids}
    counted = fires(handler)
    attempts = Counter(run["attemptNumber"] for found in history.values() for run in found)
    late: dict[int, int] = {}
    for found in history.values():
        for run in found:
            attempt = run["attemptNumber"]
            late[attempt] = max(late.get(attempt, 0), run.get("latenessMs") or 0)
    # Runs are made (queued) by the leader's fire timer: a pause after the kill means the victim led.
    made = [utc(run["queuedAt"]) for found in history.values() for run in found]
    made_after = [moment - killed_at for moment in made if moment > killed_at]
    first_made = f"{min(made_after).total_seconds():.1f} s" if made_after else "none"
    print(
        f"fires: {EVENTS} ONCE events over {EVENTS // PER_SECOND} s; at the kill {calls_at_kill} handler "
        f"calls, runs {dict(at_kill)} ({EVENTS - sum(at_kill.values())} not yet made); in all "
        f"{len(handler.calls)} handler calls for {len(counted)} scheduled times, attempts {dict(attempts)}, "
        f"latest run by attempt {late} ms after its time; first run made {first_made} after the kill"
    )
    assert all(len(found) == 1 for found in history.values()), {e: len(r) for e, r in history.items()}
    finished: dict[str, dict[str, Any]] = {event_id: found[0] for event_id, found in history.items()}
    assert {run["status"] for run in finished.values()} == {"SUCCEEDED"}, finished
    doubled = {key for key, n in counted.items() if n > 1}
    calls_of_doubled = [
        {k: call["body"][k] for k in ("eventId", "runId", "attemptNumber", "scheduledFor")}
        for call in handler.calls
        if (call["body"]["eventId"], call["body"]["scheduledFor"]) in doubled
    ]
    runs_of_doubled = {event_id: history[event_id] for event_id, _ in doubled}
    if doubled:
        print(f"doubled calls: {calls_of_doubled}; their runs: {runs_of_doubled}; held at the kill: {held}")
    assert len(counted) == EVENTS and not doubled, calls_of_doubled
    assert {event_id for event_id, _ in counted} == set(event_ids)
    assert {call["body"]["runId"] for call in handler.calls} == {run["runId"] for run in finished.values()}
    # The runs the victim held when it died went to another attempt (the handler saw only that one); no
    # other run needed one.
    retried = {run["runId"] for run in finished.values() if run["attemptNumber"] >= 2}
    assert retried and retried <= held, (retried, held)
