"""The inspector's attempts: every history entry of one execution, first attempt first, as the template shows
them (status, times, duration, the handler's answer cut to an excerpt, the error, the trace id)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

EXCERPT_CHARS = 300


@dataclass(frozen=True)
class AttemptRow:
    number: int
    status: str
    queued_at: str | None
    started_at: str | None
    duration_ms: int | None
    response: str
    error: str
    trace_id: str


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def response_excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    """The handler's answer in a line: ``HTTP 502: <body>`` for an HTTP handler's ``{status, body}``, the
    JSON as one line otherwise, cut to ``limit`` characters."""
    if not text:
        return ""
    try:
        parsed = json.loads(text)
    except ValueError:
        return _cut(" ".join(text.split()), limit)
    if isinstance(parsed, dict) and set(parsed) == {"status", "body"}:
        body = parsed["body"]
        shown = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        return _cut(f"HTTP {parsed['status']}: {' '.join(shown.split())}", limit)
    return _cut(json.dumps(parsed, ensure_ascii=False, sort_keys=True), limit)


def attempt_rows(history: list[dict[str, Any]]) -> list[AttemptRow]:
    """The history's entries of one execution (in any order) as rows, by attempt number."""
    rows = []
    for entry in sorted(history, key=lambda entry: int(entry.get("attemptNumber") or 0)):
        details = entry.get("executionDetails") or {}
        rows.append(
            AttemptRow(
                number=int(entry.get("attemptNumber") or 0),
                status=str(entry.get("status") or ""),
                queued_at=entry.get("queuedAt"),
                started_at=entry.get("startedAt"),
                duration_ms=entry.get("durationMs"),
                response=response_excerpt(details.get("resourceResponseJson")),
                error=str(details.get("errorMessage") or details.get("transformError") or ""),
                trace_id=str(details.get("traceId") or ""),
            )
        )
    return rows
