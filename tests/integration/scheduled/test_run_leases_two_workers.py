"""Two workers share scheduled runs; each renews the leases of the runs it acts on (issue 21).

A run held up longer than the old grace (the action timeout plus SVC_PROCESSING_GRACE_SECONDS) by its live
worker is not re-run by the other worker's reconciler: each run reaches the handler once. A run whose worker
is killed (SIGKILL) mid-call is re-run once its lease has run out.

The module's tests share one stack (database, ingress, the pair of workers): forming the workers' group is
most of a test's set-up. So both tests run on the same worker settings (the action timeout, and the pause
before each action that holds a run up); each has its own company, handler and events. The kill test runs
last, and a test that finds a worker dead starts it again."""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiokafka.partitioner import DefaultPartitioner
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.models import ScheduledEventRun
from tests.fixtures import module_stack
from tests.fixtures.stack import Db
from tests.fixtures.two_workers import wait_until
from tests.integration import lease_helpers
from tests.integration.lease_helpers import CallerHandler, Pair, caller_handler, histogram, two_workers
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool

pytestmark = pytest.mark.integration
__all__ = ["caller_handler"]  # a fixture

LEASE = "3"  # renewed every second
ACTION_TIMEOUT = 6.0  # with the workers' 1 s processing grace, the old rule re-ran a run after 7 s
# Each worker holds every run it claims this long before acting (a rebalance, a loaded machine), then calls
# the handler: past the old rule with the handler's delay, within the cap (3 x the action timeout = 18 s).
PAUSE = 7.0
PER_PARTITION = 2  # runs due on each partition of the tick topic, so that both workers act

# The module's one stack (tests/fixtures/module_stack.py) and its pair of workers on PostgreSQL.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES
kafka_settings, pair = lease_helpers.PAIR_FIXTURES


@pytest.fixture(scope="module")
def pair_env() -> dict[str, str]:
    return {
        "SVC_LEASE_SECONDS": LEASE,
        "SVC_SCHEDULER_ACTION_TIMEOUT_SECONDS": str(ACTION_TIMEOUT),
        "SVC_SCHEDULER_PAUSE_BEFORE_ACTION_SECONDS": str(PAUSE),
    }


def due_on_both_partitions(scene: Scene, tool_id: str, settings: Settings, seconds: int) -> list[str]:
    """ONCE events all due in ``seconds``, created until each partition of the tick topic (keyed by event id)
    has PER_PARTITION of them."""
    at = (datetime.now(UTC) + timedelta(seconds=seconds)).replace(microsecond=0, tzinfo=None)
    spec = {"pattern": "ONCE", "once": {"at": at.isoformat(), "timezone": "UTC"}}
    partitions = list(range(settings.topic_partitions))
    on: Counter[int] = Counter()
    event_ids: list[str] = []
    while min(on[p] for p in partitions) < PER_PARTITION:
        assert len(event_ids) < 40, on
        event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=spec))["eventId"]
        event_ids.append(event_id)
        on[DefaultPartitioner()(event_id.encode(), partitions, partitions)] += 1
    return event_ids


def run_rows(db: Db, event_ids: list[str]) -> dict[str, ScheduledEventRun]:
    with db.sessions() as session:
        rows = session.scalars(select(ScheduledEventRun).where(ScheduledEventRun.event_id.in_(event_ids)))
        return {row.id: row for row in rows}


def settled(db: Db, event_ids: list[str]) -> bool:
    rows = run_rows(db, event_ids).values()
    return len(rows) == len(event_ids) and all(row.status not in ("QUEUED", "RUNNING") for row in rows)


def figures(handler: CallerHandler, rows: dict[str, ScheduledEventRun]) -> dict[str, Any]:
    return {
        "calls per run": histogram(handler.calls_per_item()),
        "runs per worker": dict(Counter(w for ws in handler.callers().values() for w in ws)),
        "status, attempt": dict(Counter((row.status, row.attempt) for row in rows.values())),
    }


def test_a_run_held_up_past_the_old_grace_is_not_run_again_by_the_other_worker(
    scene: Scene, caller_handler: CallerHandler, kafka_settings: Settings, pair: Pair
) -> None:
    handler = caller_handler
    handler.delay = 2.0  # within the action timeout; with the pause, each run is held about 9 s
    two_workers(pair, handler)
    tool_id = handler_tool(scene, handler)
    event_ids = due_on_both_partitions(scene, tool_id, kafka_settings, 8)
    wait_until(lambda: settled(scene.db, event_ids), 90, "not every run ended")
    # A run failed as lost after its last attempt may still be acted on by the worker that held it, after
    # its pause: give such calls the time to arrive, so that every call is counted.
    time.sleep(PAUSE + 1)
    rows = run_rows(scene.db, event_ids)
    seen = figures(handler, rows)
    print(f"held-up runs, {len(event_ids)} runs on two workers: {seen}")
    assert set(handler.calls_per_item().values()) == {1}, seen
    assert {(row.status, row.attempt) for row in rows.values()} == {("SUCCEEDED", 1)}, seen
    # Both workers acted, so runs acted on by the worker that does not lead (whose reconciler runs) were
    # held past the old grace too.
    assert set(seen["runs per worker"]) == {"first", "second"}, seen


def test_a_run_whose_worker_is_killed_mid_call_is_run_again_once_its_lease_ran_out(
    scene: Scene, caller_handler: CallerHandler, kafka_settings: Settings, pair: Pair
) -> None:
    handler = caller_handler
    handler.delay = 4.0  # within the 6 s action timeout: the kill lands mid-call
    first, second = two_workers(pair, handler)
    tool_id = handler_tool(scene, handler)
    event_ids = due_on_both_partitions(scene, tool_id, kafka_settings, 8)
    wait_until(lambda: len(handler.arrivals) >= len(event_ids), 60, "not every run reached the handler")
    victim_name = handler.arrivals[-1]["worker"]
    assert victim_name in ("first", "second"), handler.arrivals  # the calling socket was found
    victim, survivor = (first, second) if victim_name == "first" else (second, first)
    killed_at = time.time()
    victim.kill()
    at_kill = run_rows(scene.db, event_ids)
    held = {
        run_id
        for run_id, row in at_kill.items()
        if row.status == "RUNNING"
        and handler.callers()[run_id] == {victim_name}
        and run_id in handler.unanswered_at(killed_at)
    }
    assert held, figures(handler, at_kill)
    assert survivor.process is not None and survivor.process.poll() is None, "the survivor died"
    wait_until(lambda: settled(scene.db, event_ids), 90, "not every run ended")
    wait_until(lambda: len(handler.arrivals) >= len(event_ids) + len(held), 30, "no re-run called")
    rows = run_rows(scene.db, event_ids)
    seen = figures(handler, rows)
    print(f"killed mid-call, {len(event_ids)} runs, {len(held)} held by the killed worker: {seen}")
    calls = handler.calls_per_item()
    assert {run_id: calls[run_id] for run_id in held} == dict.fromkeys(held, 2), seen
    assert all(calls[run_id] == 1 for run_id in rows if run_id not in held), seen
    assert {row.status for row in rows.values()} == {"SUCCEEDED"}, seen
    for run_id in held:
        again, lease_until = rows[run_id], at_kill[run_id].lease_until
        assert again.attempt == 2
        # The next attempt was claimed only after the killed worker's lease on the run had run out.
        assert lease_until is not None and again.started_at is not None and again.started_at > lease_until
