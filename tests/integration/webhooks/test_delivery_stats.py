"""/get-delivery-stats counted and ranked by the database (SQLite and PostgreSQL): attempts by bucket and
status, the nearest-rank p50 and p99 per bucket and over the window, the window's edges kept, another
webhook's attempts left out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.webhooks.stats import bucket_start, percentile
from schemas.webhooks import ExecutionStatus
from sinks.db.webhooks import executions
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import add_history_entry

pytestmark = pytest.mark.integration
STATS = "get-delivery-stats"


def _add(world: World, webhook_id: str, n: int, queued: datetime, status: str, duration: int | None) -> None:
    add_history_entry(world, webhook_id, n, queued_at=queued, status=status, duration_ms=duration)


def test_attempts_are_counted_by_bucket_and_status_with_their_percentiles(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    other_id = world.api.create(world.owner)["webhook"]["id"]
    now = datetime.now(UTC)
    recent = bucket_start(now - timedelta(minutes=5), 60) + timedelta(seconds=7)
    earlier = bucket_start(now - timedelta(minutes=20), 60) + timedelta(seconds=50)
    durations = [40, 10, 30, 20, 30, 500]
    for n, duration in enumerate(durations):
        status = ExecutionStatus.FAILED if n == 5 else ExecutionStatus.SUCCESS
        _add(world, webhook_id, n, recent + timedelta(milliseconds=n), status.value, duration)
    _add(world, webhook_id, 10, earlier, ExecutionStatus.QUEUED.value, None)  # not run yet: no duration
    # 0.8 s before the next minute: still this one (rounding to the second would move it on).
    late = bucket_start(earlier, 60) + timedelta(seconds=59, milliseconds=800)
    _add(world, webhook_id, 13, late, ExecutionStatus.QUEUED.value, None)
    _add(world, webhook_id, 11, now - timedelta(hours=3), ExecutionStatus.SUCCESS.value, 7)  # the day only
    _add(world, other_id, 12, recent, ExecutionStatus.FAILED.value, 9_999)  # another webhook's

    hour = world.api.ok(world.owner, STATS, {"webhookId": webhook_id, "window": "HOUR"})
    assert (hour["bucketSeconds"], len(hour["buckets"])) in {(60, 61), (60, 62)}
    assert hour["total"] == 8 and hour["truncated"] is False
    assert (hour["p50Ms"], hour["p99Ms"]) == (percentile(durations, 0.5), percentile(durations, 0.99))
    by_start = {bucket["start"]: bucket for bucket in hour["buckets"]}
    busy = by_start[bucket_start(recent, 60).strftime("%Y-%m-%dT%H:%M:%S.000")]
    assert busy["counts"] == {"FAILED": 1, "SUCCESS": 5}
    assert (busy["p50Ms"], busy["p99Ms"]) == (30, 500)
    queued = by_start[bucket_start(earlier, 60).strftime("%Y-%m-%dT%H:%M:%S.000")]
    assert queued["counts"] == {"QUEUED": 2} and (queued["p50Ms"], queued["p99Ms"]) == (None, None)
    assert sum(sum(b["counts"].values()) for b in hour["buckets"]) == 8

    day = world.api.ok(world.owner, STATS, {"webhookId": webhook_id, "window": "DAY"})
    assert day["total"] == 9 and day["bucketSeconds"] == 1800
    assert (day["p50Ms"], day["p99Ms"]) == (
        percentile([*durations, 7], 0.5),
        percentile([*durations, 7], 0.99),
    )
    assert sum(sum(b["counts"].values()) for b in day["buckets"]) == 9

    empty = world.api.ok(world.owner, STATS, {"webhookId": world.api.create(world.owner)["webhook"]["id"]})
    assert (empty["total"], empty["p50Ms"], empty["p99Ms"]) == (0, None, None)
    assert all(bucket["counts"] == {} for bucket in empty["buckets"])


def test_past_its_limit_a_window_counts_its_newest_attempts(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    now = datetime.now(UTC)
    for n in range(5):
        _add(world, webhook_id, n, now - timedelta(minutes=n + 1), ExecutionStatus.SUCCESS.value, 10 * n)
    since = now - timedelta(hours=1)
    with world.db.sessions() as session:
        newest, truncated = executions.attempt_groups(session, world.company_id, webhook_id, since, 60, 3)
        every, every_truncated = executions.attempt_groups(
            session, world.company_id, webhook_id, since, 60, 5
        )
        _, four_truncated = executions.attempt_groups(session, world.company_id, webhook_id, since, 60, 4)
    assert truncated and sum(group.count for group in newest) == 3
    assert sorted(duration for group in newest for duration in group.durations) == [0, 10, 20]
    assert not every_truncated and sum(group.count for group in every) == 5 and four_truncated
