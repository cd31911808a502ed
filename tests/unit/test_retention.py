"""Retention in force and its cutoffs (core/retention.py), and the bounds of a company's own values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from core.retention import Retention, cutoffs, of_settings
from schemas.retention import MAX_SECONDS, MIN_SECONDS, RetentionUpdate
from schemas.settings import Settings

pytestmark = pytest.mark.unit

SERVICE = Retention(history_seconds=100, runs_seconds=200, jobs_seconds=300)


def test_a_company_value_replaces_the_service_one_and_none_keeps_it() -> None:
    assert SERVICE.overridden(None, None, None) == SERVICE
    assert SERVICE.overridden(5, None, 7) == Retention(history_seconds=5, runs_seconds=200, jobs_seconds=7)


def test_cutoffs_are_now_minus_each_retention() -> None:
    now = datetime(2026, 12, 2, 12, tzinfo=UTC)
    cut = cutoffs(SERVICE, now)
    assert (now - cut.history, now - cut.runs, now - cut.jobs) == (
        timedelta(seconds=100),
        timedelta(seconds=200),
        timedelta(seconds=300),
    )


def test_the_service_values_come_from_the_settings_which_take_any_positive_seconds() -> None:
    settings = Settings(history_retention_seconds=60, runs_retention_seconds=1, jobs_retention_seconds=2)
    assert of_settings(settings) == Retention(history_seconds=60, runs_seconds=1, jobs_seconds=2)
    assert of_settings(Settings()) == Retention(30 * 86400, 90 * 86400, 30 * 86400)
    with pytest.raises(ValidationError):
        Settings(history_retention_seconds=0)


@pytest.mark.parametrize("seconds", [MIN_SECONDS - 1, MAX_SECONDS + 1, 0, -5])
def test_a_company_value_stays_between_an_hour_and_ten_years(seconds: int) -> None:
    with pytest.raises(ValidationError):
        RetentionUpdate.model_validate({"historySeconds": seconds})


def test_an_update_names_a_value_and_null_is_kept_apart_from_absent() -> None:
    with pytest.raises(ValidationError):
        RetentionUpdate.model_validate({})
    update = RetentionUpdate.model_validate({"runsSeconds": None, "jobsSeconds": MIN_SECONDS})
    assert update.model_fields_set == {"runs_seconds", "jobs_seconds"}
    assert (update.runs_seconds, update.jobs_seconds) == (None, MIN_SECONDS)
    assert MAX_SECONDS == 10 * 365 * 86400
