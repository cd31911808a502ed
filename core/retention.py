"""How long each kind of record is kept: the service's settings, a company's own values, and the moment
before which a record is past its retention."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from schemas.settings import Settings

HOUR = 3600
DAY = 24 * HOUR
# Records whose purpose ends soon after they do, kept a fixed time (docs/operations.md).
ENDED_UPLOAD_SECONDS = DAY
READ_CHARGE_DAYS = 2


@dataclass(frozen=True)
class Retention:
    """Seconds each kind of record is kept."""

    history_seconds: int
    runs_seconds: int
    jobs_seconds: int

    def overridden(
        self, history_seconds: int | None, runs_seconds: int | None, jobs_seconds: int | None
    ) -> Retention:
        """These values where a company set its own (not None), the service's elsewhere."""
        return replace(
            self,
            history_seconds=self.history_seconds if history_seconds is None else history_seconds,
            runs_seconds=self.runs_seconds if runs_seconds is None else runs_seconds,
            jobs_seconds=self.jobs_seconds if jobs_seconds is None else jobs_seconds,
        )


def of_settings(settings: Settings) -> Retention:
    """The service's retention, for every company without values of its own."""
    return Retention(
        history_seconds=settings.history_retention_seconds,
        runs_seconds=settings.runs_retention_seconds,
        jobs_seconds=settings.jobs_retention_seconds,
    )


@dataclass(frozen=True)
class Cutoffs:
    """Records older than these moments are past their retention."""

    history: datetime
    runs: datetime
    jobs: datetime


def cutoffs(retention: Retention, now: datetime) -> Cutoffs:
    return Cutoffs(
        history=now - timedelta(seconds=retention.history_seconds),
        runs=now - timedelta(seconds=retention.runs_seconds),
        jobs=now - timedelta(seconds=retention.jobs_seconds),
    )
