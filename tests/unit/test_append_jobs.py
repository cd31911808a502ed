"""APPEND jobs as /job-status shows them: state mapping, counts, elapsed time, and who sees the counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.policy import TablePolicy
from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.job_access import _append_shortfall
from ingress.analytics.job_views import append_status_body
from schemas.jobs import JobState
from sinks.db.analytics.append_jobs import STATES, AppendJob, state_of

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def job(state: JobState, finished: datetime | None = None, error: str | None = None) -> AppendJob:
    return AppendJob("a" * 32, "t" * 32, "u1", state, 7, error, T0, finished)


def test_every_write_status_is_a_job_state_and_back() -> None:
    assert {status: state.value for status, state in STATES.items()} == {
        "PENDING": "QUEUED",
        "WRITING": "RUNNING",
        "COMMITTED": "SUCCEEDED",
        "FAILED": "FAILED",
        "CANCELLED": "CANCELLED",
    }
    assert state_of("SOMETHING NEW") is JobState.FAILED


@pytest.mark.parametrize("state", [JobState.QUEUED, JobState.RUNNING, JobState.FAILED, JobState.CANCELLED])
def test_rows_appended_are_known_only_once_succeeded(state: JobState) -> None:
    assert job(state).rows_appended is None
    assert job(JobState.SUCCEEDED, T0).rows_appended == 7


def test_elapsed_runs_from_acceptance() -> None:
    later = T0 + timedelta(seconds=2)
    assert job(JobState.QUEUED).elapsed_ms(later) is None
    assert job(JobState.RUNNING).elapsed_ms(later) == 2000
    assert job(JobState.RUNNING).elapsed_ms() is None  # as /jobs lists a running job
    assert job(JobState.SUCCEEDED, T0 + timedelta(milliseconds=1500)).elapsed_ms(later) == 1500


def test_a_succeeded_append_in_a_loads_shape() -> None:
    body = append_status_body(job(JobState.SUCCEEDED, T0 + timedelta(seconds=1)), None, T0)
    assert body["kind"] == "APPEND" and body["state"] == "SUCCEEDED"
    assert (body["rowsLoaded"], body["resultRowCount"], body["rowsRejected"]) == (7, 7, None)
    assert (body["error"], body["notes"], body["rejectedSample"]) == (None, [], [])
    assert (body["createdAt"], body["finishedAt"]) == ("2026-03-01T12:00:00.000", "2026-03-01T12:00:01.000")


def test_counts_refused_are_left_out_with_the_reason() -> None:
    refused = analytics_error("FORBIDDEN", "your grant's row filter hides some of its rows")
    body = append_status_body(job(JobState.SUCCEEDED, T0), refused, T0)
    assert (body["rowsLoaded"], body["resultRowCount"]) == (None, None)
    assert body["notes"] == ["Row counts left out: your grant's row filter hides some of its rows"]


def test_a_failed_append_carries_an_error_object() -> None:
    body = append_status_body(job(JobState.FAILED, T0, "the table is gone"), None, T0)
    assert body["error"] == {
        "errorCode": "INTERNAL",
        "message": "the table is gone",
        "hint": "None of its rows were added: send them again",
    }


def test_who_sees_an_appends_counts() -> None:
    whole = TablePolicy(hidden_columns=frozenset({"email"}))  # hidden columns hide no row
    filtered = TablePolicy(row_filter="region = 'EU'")
    assert _append_shortfall(whole, runner=False) is None
    assert _append_shortfall(filtered, runner=True) is None  # the sender's own rows
    assert _append_shortfall(filtered, runner=False) == "your grant's row filter hides some of its rows"
    assert _append_shortfall(None, runner=True) == "you have no READ grant on it"
