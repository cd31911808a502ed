"""View models: what the templates show, made from the API's answers by pure functions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

PAGE_WINDOW = 3


def pretty_json(text: str | None) -> str:
    """A JSON text indented for reading; anything else as it is."""
    if text is None:
        return ""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False, sort_keys=True)
    except (ValueError, TypeError):
        return text


def header_rows(text: str | None) -> list[tuple[str, str]]:
    """Stored request headers (a JSON object) as name/value rows, in name order; redacted values stay as the
    API gives them."""
    if not text:
        return []
    try:
        parsed = json.loads(text)
    except ValueError:
        return [("(unreadable)", text)]
    if not isinstance(parsed, dict):
        return [("(unreadable)", text)]
    return sorted(
        (str(name), value if isinstance(value, str) else json.dumps(value)) for name, value in parsed.items()
    )


def page_numbers(current: int, total_pages: int) -> list[int]:
    """Zero-based pages to link around ``current``: the first, the last and a window between."""
    if total_pages <= 0:
        return []
    wanted = {0, total_pages - 1, *range(current - PAGE_WINDOW, current + PAGE_WINDOW + 1)}
    return sorted(page for page in wanted if 0 <= page < total_pages)


def mappings_text(mappings: dict[str, str] | None) -> str:
    return "\n".join(f"{name} = {path}" for name, path in (mappings or {}).items())


def tone(status: str | None) -> str:
    """The colour class of a status badge."""
    if status in {"SUCCESS", "SUCCEEDED", "ENABLED", "RESOLVED", "CLOSED"}:
        return "ok"
    if status in {"FAILED", "TRANSFORM_FAILED", "TIMED_OUT", "MISSED", "OPEN", "CANCELLED"}:
        return "bad"
    return "wait"


@dataclass(frozen=True)
class FireTime:
    local: str
    offset: str
    offset_changed: bool


def fire_times(times: list[str]) -> list[FireTime]:
    """Previewed fire times in their zone, each with its UTC offset, marking where the offset changes (a DST
    change between two fires)."""
    shown: list[FireTime] = []
    previous: str | None = None
    for value in times:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            shown.append(FireTime(value, "", False))
            continue
        offset = moment.strftime("%z")
        offset = f"{offset[:3]}:{offset[3:]}" if offset else "UTC"
        shown.append(
            FireTime(
                moment.strftime("%Y-%m-%d %H:%M:%S"), offset, previous is not None and offset != previous
            )
        )
        previous = offset
    return shown


def cell(value: Any) -> str:
    """A result cell as text: JSON for lists and objects, empty for null."""
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, CHART_BOTTOM = 720, 160, 44, 18
STATUS_ORDER = ("SUCCESS", "FAILED", "TRANSFORM_FAILED", "FILTERED", "PROCESSING", "QUEUED")


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    status: str
    title: str


@dataclass(frozen=True)
class Chart:
    """An inline SVG chart's geometry, made on the server: the template draws it (no script)."""

    width: int
    height: int
    left: int
    plot_height: int
    top_label: str
    bars: list[Bar]
    lines: dict[str, str]  # series name → polyline points
    statuses: list[str]
    dots: list[tuple[str, float, float, str]] = field(default_factory=list)  # series, x, y, title


def _ordered(statuses: set[str]) -> list[str]:
    known = [status for status in STATUS_ORDER if status in statuses]
    return known + sorted(statuses - set(STATUS_ORDER))


def status_chart(buckets: list[dict[str, Any]]) -> Chart:
    """Stacked bars, one per bucket, of the attempts by status."""
    plot = CHART_HEIGHT - CHART_BOTTOM
    slot = (CHART_WIDTH - CHART_LEFT) / max(1, len(buckets))
    peak = max([sum(b["counts"].values()) for b in buckets] + [1])
    statuses = _ordered({status for b in buckets for status in b["counts"]})
    bars: list[Bar] = []
    for index, bucket in enumerate(buckets):
        bottom = float(plot)
        for status in statuses:
            count = bucket["counts"].get(status, 0)
            if not count:
                continue
            height = plot * count / peak
            bottom -= height
            x = CHART_LEFT + index * slot
            bars.append(
                Bar(
                    round(x + 0.5, 1),
                    round(bottom, 1),
                    round(max(slot - 1, 0.5), 1),
                    round(height, 1),
                    status,
                    f"{bucket['start']}: {count} {status}",
                )
            )
    return Chart(CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, plot, str(peak), bars, {}, statuses)


def latency_chart(buckets: list[dict[str, Any]]) -> Chart:
    """The p50 and p99 of each bucket that has durations, as two lines (ms)."""
    plot = CHART_HEIGHT - CHART_BOTTOM
    slot = (CHART_WIDTH - CHART_LEFT) / max(1, len(buckets))
    peak = max([b.get("p99Ms") or 0 for b in buckets] + [b.get("p50Ms") or 0 for b in buckets] + [1])
    lines: dict[str, str] = {}
    dots: list[tuple[str, float, float, str]] = []
    for series, key in (("p50", "p50Ms"), ("p99", "p99Ms")):
        points = [
            (round(CHART_LEFT + (index + 0.5) * slot, 1), round(plot - plot * bucket[key] / peak, 1), bucket)
            for index, bucket in enumerate(buckets)
            if bucket.get(key) is not None
        ]
        lines[series] = " ".join(f"{x},{y}" for x, y, _ in points)
        dots.extend((series, x, y, f"{b['start']}: {series} {b[key]} ms") for x, y, b in points)
    return Chart(CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, plot, f"{peak} ms", [], lines, [], dots)
