"""The numbers behind /custom-webhooks/get-delivery-stats: buckets aligned on the epoch, empty ones kept, and
nearest-rank percentiles; and the console's chart geometry made from them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.webhooks.stats import AttemptGroup, bucket_start, buckets, percentile
from ingress.console import views

pytestmark = pytest.mark.unit
T0 = datetime(2026, 12, 2, 10, 0, 30, tzinfo=UTC)


def test_nearest_rank_percentiles() -> None:
    assert percentile([], 0.5) is None
    assert percentile([7], 0.99) == 7
    values = list(range(1, 101))
    assert percentile(values, 0.5) == 50 and percentile(values, 0.99) == 99
    assert percentile([30, 10, 20], 0.5) == 20 and percentile([30, 10, 20], 0.99) == 30


def test_buckets_span_the_window_and_count_by_status() -> None:
    assert bucket_start(T0, 60) == datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
    assert bucket_start(T0, 1800) == datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
    minute = int(T0.timestamp()) // 60
    groups = [
        AttemptGroup(minute, "SUCCESS", 1, [10]),
        AttemptGroup(minute, "FAILED", 1, [30]),
        AttemptGroup(minute + 2, "SUCCESS", 1, []),
        AttemptGroup(minute - 5, "SUCCESS", 1, [1]),  # before the window: left out
        AttemptGroup(minute + 4, "SUCCESS", 1, [1]),  # after it: left out
    ]
    found = buckets(groups, T0, T0 + timedelta(minutes=3), 60)
    assert [b.start.minute for b in found] == [0, 1, 2, 3]
    assert dict(found[0].counts) == {"SUCCESS": 1, "FAILED": 1} and found[0].durations == [10, 30]
    assert (
        dict(found[1].counts) == {} and dict(found[2].counts) == {"SUCCESS": 1} and found[2].durations == []
    )


def test_charts_stack_the_statuses_and_draw_the_percentiles() -> None:
    rows: list[dict[str, Any]] = [
        {"start": "a", "counts": {"SUCCESS": 3, "FAILED": 1}, "p50Ms": 10, "p99Ms": 40},
        {"start": "b", "counts": {}, "p50Ms": None, "p99Ms": None},
        {"start": "c", "counts": {"SUCCESS": 2}, "p50Ms": 20, "p99Ms": 20},
    ]
    chart = views.status_chart(rows)
    assert chart.top_label == "4" and chart.statuses == ["SUCCESS", "FAILED"]
    first = [bar for bar in chart.bars if bar.title.startswith("a:")]
    assert [bar.status for bar in first] == ["SUCCESS", "FAILED"]
    assert sum(bar.height for bar in first) == pytest.approx(chart.plot_height, abs=0.2)
    assert first[1].y == 0  # the tallest bucket reaches the top
    latency = views.latency_chart(rows)
    assert latency.top_label == "40 ms"
    assert len(latency.lines["p50"].split()) == 2 and latency.lines["p99"].split()[0].endswith(",0.0")
    assert [(series, title) for series, _x, _y, title in latency.dots][:2] == [
        ("p50", "a: p50 10 ms"),
        ("p50", "c: p50 20 ms"),
    ]
    empty = views.status_chart([])
    assert empty.bars == [] and empty.top_label == "1"
