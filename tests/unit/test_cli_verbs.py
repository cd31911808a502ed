"""The pure parts of the remote verbs (``svc tail``, ``replay``, ``query``, ``schedules preview``): what they
send, what they print, and their options. The verbs against a running stack are in
tests/e2e/test_client_and_verbs.py."""

from __future__ import annotations

import argparse
import io
import json
from typing import Any

import pytest
from pydantic import ValidationError

from svc.cli import _parser, main
from svc.verbs import render, replay, schedules, tail
from svc.verbs.query import Progress, failure
from svc.verbs.remote import error_messages


def entry(entry_id: str, status: str, queued: str, attempt: int = 1, **details: Any) -> dict[str, Any]:
    return {
        "id": entry_id,
        "executionId": f"x-{entry_id}",
        "status": status,
        "attemptNumber": attempt,
        "queuedAt": queued,
        "durationMs": 12 if status == "SUCCESS" else None,
        "executionDetails": details,
    }


def test_tail_shows_new_entries_and_changes_of_status_oldest_first() -> None:
    seen: set[tuple[str, str]] = set()
    first = [entry("b", "QUEUED", "2026-01-01T00:00:02Z"), entry("a", "SUCCESS", "2026-01-01T00:00:01Z")]
    assert [e["id"] for e in tail.fresh_entries(seen, first)] == ["a", "b"]
    assert tail.fresh_entries(seen, first) == []
    later = [entry("b", "SUCCESS", "2026-01-01T00:00:02Z"), *first[1:]]
    assert [(e["id"], e["status"]) for e in tail.fresh_entries(seen, later)] == [("b", "SUCCESS")]


def test_tail_line_names_status_attempt_duration_and_error() -> None:
    ok = tail.describe(entry("a", "SUCCESS", "2026-01-01T00:00:01Z"))
    assert "SUCCESS" in ok and "attempt 1" in ok and "12 ms" in ok and "x-a" in ok
    failed = tail.describe(entry("b", "FAILED", "2026-01-01T00:00:01Z", 3, errorMessage="HTTP 500"))
    assert "attempt 3" in failed and failed.endswith("HTTP 500") and " - " in failed
    assert tail.summary(entry("c", "TRANSFORM_FAILED", "t", transformError="bad path"))["error"] == "bad path"


def test_tail_forwards_the_original_body_with_its_type() -> None:
    assert tail.forward_body(entry("a", "QUEUED", "t", requestPayload='{"id": 1}')) == (
        b'{"id": 1}',
        "application/json",
    )
    assert tail.forward_body(entry("a", "QUEUED", "t", requestPayload="a=1&b=2"))[1].startswith("text/plain")
    assert tail.forward_body(entry("a", "QUEUED", "t")) == (b"", "text/plain; charset=utf-8")


def parse(*argv: str) -> argparse.Namespace:
    return _parser().parse_args(argv)


def test_every_verb_takes_url_key_and_json_from_options_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SVC_URL", "http://svc.test:9000")
    monkeypatch.setenv("SVC_KEY", "svcp_from_env")
    for argv in (
        ("tail", "w1"),
        ("replay", "w1", "--status", "FAILED"),
        ("query", "SELECT 1", "--table", "t1"),
        ("schedules", "preview", "rate(5 minutes)"),
    ):
        args = parse(*argv)
        assert (args.url, args.key, args.json) == ("http://svc.test:9000", "svcp_from_env", False)
        given = parse(*argv, "--url", "http://other:1", "--key", "k", "--json")
        assert (given.url, given.key, given.json) == ("http://other:1", "k", True)


def test_replay_sends_the_filter_form() -> None:
    args = parse("replay", "w1", "--status", "FAILED", "--from", "2026-12-01T00:00:00Z", "--dry-run")
    assert replay.replay_body(args) == {
        "webhookId": "w1",
        "filter": {"status": "FAILED", "from": "2026-12-01T00:00:00Z"},
        "dryRun": True,
    }
    limited = replay.replay_body(parse("replay", "w1", "--status", "FAILED", "--limit", "5"))
    assert limited["limit"] == 5 and limited["filter"] == {"status": "FAILED"} and not limited["dryRun"]


def test_replay_refuses_what_the_service_would_before_any_call(capsys: pytest.CaptureFixture[str]) -> None:
    naive = ("replay", "w1", "--status", "FAILED", "--from", "2026-12-01T00:00:00", "--key", "k")
    with pytest.raises(ValidationError):
        replay.replay_body(parse(*naive))
    # No service listens on the default URL here: exit 2 shows the options were refused first.
    assert main(list(naive)) == 2
    assert capsys.readouterr().err.startswith("svc replay: filter.from: ")
    backwards = ("--from", "2026-12-02T00:00:00Z", "--to", "2026-12-01T00:00:00Z")
    with pytest.raises(ValidationError, match=r"filter\.from must be before filter\.to"):
        replay.replay_body(parse("replay", "w1", "--status", "FAILED", *backwards))


def test_replay_describes_counts_and_executions() -> None:
    answer = {
        "matched": 2,
        "replayed": 1,
        "executions": [
            {"originalExecutionId": "o1", "executionId": "n1"},
            {"originalExecutionId": "o2", "executionId": None, "error": "webhook disabled"},
        ],
    }
    text = replay.describe(answer, dry_run=False)
    assert text.splitlines() == ["matched 2, replayed 1", "  o1 -> n1", "  o2 -> -  webhook disabled"]
    assert replay.describe({"matched": 3, "replayed": 0, "executions": []}, dry_run=True) == (
        "matched 3, dry run: nothing sent"
    )


def test_schedules_preview_sends_the_expression_its_zone_and_count() -> None:
    args = parse(
        "schedules", "preview", "cron(0 9 ? * MON-FRI *)", "--timezone", "Europe/Berlin", "--count", "3"
    )
    assert schedules.preview_body(args) == {
        "cronExpression": "cron(0 9 ? * MON-FRI *)",
        "timezone": "Europe/Berlin",
        "count": 3,
    }


def test_schedules_preview_refuses_a_count_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schedules", "preview", "rate(5 minutes)", "--count", "101", "--key", "k"]) == 2
    assert capsys.readouterr().err.startswith("svc schedules preview: count: ")


def test_results_render_as_an_aligned_table() -> None:
    rows: list[dict[str, Any]] = [
        {"id": 1, "name": "Ada", "tags": ["a"]},
        {"id": 22, "name": None, "tags": {"k": True}},
    ]
    assert render.as_table(["id", "name", "tags"], rows).splitlines() == [
        "id  name  tags",
        "--  ----  -----------",
        '1   Ada   ["a"]',
        '22        {"k": true}',
        "(2 rows)",
    ]
    assert render.as_table(["n"], [{"n": "x" * 100}]).splitlines()[2] == "x" * 59 + "…"


def test_results_render_as_csv_and_json() -> None:
    rows: list[dict[str, Any]] = [{"id": 1, "note": 'say "hi", ok'}, {"id": 2, "note": None}]
    assert render.as_csv(["id", "note"], rows) == 'id,note\n1,"say ""hi"", ok"\n2,\n'
    assert render.cell_text(False) == "false"
    columns = [{"name": "id", "type": "bigint"}]
    assert json.loads(render.as_json("j1", columns, rows)) == {
        "jobId": "j1",
        "columns": columns,
        "rows": rows,
    }
    assert render.as_json("j1", columns, []).endswith("}\n")


def test_query_progress_writes_a_line_per_state_when_not_on_a_terminal() -> None:
    clock = iter([0.0, 0.5, 1.0, 2.5]).__next__
    stream = io.StringIO()
    progress = Progress(stream, clock=clock)
    for state in ("QUEUED", "RUNNING", "SUCCEEDED"):
        progress.show({"jobId": "j1", "state": state})
    assert stream.getvalue().splitlines() == [
        "job j1 QUEUED 0.5 s",
        "job j1 RUNNING 1.0 s",
        "job j1 SUCCEEDED 2.5 s",
    ]


def test_a_failed_job_is_reported_with_its_message() -> None:
    status = {
        "jobId": "j1",
        "state": "FAILED",
        "error": {"code": "QUERY_FAILED", "message": "division by zero"},
    }
    assert failure(status) == "job j1 FAILED: division by zero"
    assert failure({"jobId": "j2", "state": "CANCELLED", "error": None}) == "job j2 CANCELLED"


def test_error_answers_become_one_line() -> None:
    assert error_messages(401, '{"errors": ["Invalid API key"]}') == "401: Invalid API key"
    assert error_messages(401, '{"error": "Invalid signature."}') == "401: Invalid signature."
    assert error_messages(502, "<html>bad gateway</html>") == "502: <html>bad gateway</html>"
