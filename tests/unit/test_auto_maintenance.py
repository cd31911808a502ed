"""Which maintenance actions are due when the worker looks at a table (core/auto_maintenance.py), and that
every worker registers the rounds unless SVC_AUTO_MAINTENANCE is off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from core.auto_maintenance import EXPIRY_EVERY, due_actions, expiry_due
from schemas.maintenance import MaintenanceAction as Action
from schemas.settings import Settings
from streams.analytics.maintenance import TableMaintainer
from streams.app import create_app
from streams.areas import AREAS

NOW = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
DAILY = [Action.EXPIRE_SNAPSHOTS, Action.REMOVE_ORPHANS]


def due(small: int, last_expired_at: datetime | None, threshold: int = 64) -> list[Action]:
    return due_actions(
        most_small_files=small, small_files_threshold=threshold, now=NOW, last_expired_at=last_expired_at
    )


def test_compaction_is_due_only_past_the_threshold() -> None:
    recent = NOW - timedelta(hours=1)
    assert due(64, recent) == []
    assert due(65, recent) == [Action.COMPACT]
    assert due(0, recent, threshold=0) == []
    assert due(1, recent, threshold=0) == [Action.COMPACT]


def test_expiry_and_orphans_are_due_once_a_day_and_at_once_for_a_table_never_expired() -> None:
    assert due(0, None) == DAILY
    assert due(0, NOW - EXPIRY_EVERY) == DAILY
    assert due(0, NOW - EXPIRY_EVERY + timedelta(seconds=1)) == []
    assert not expiry_due(NOW, NOW)
    assert expiry_due(NOW, NOW - timedelta(minutes=5), every=timedelta(minutes=5))


def test_everything_due_runs_in_the_maintain_calls_order() -> None:
    assert due(100, None) == [Action.COMPACT, Action.EXPIRE_SNAPSHOTS, Action.REMOVE_ORPHANS]


def _maintenance_tasks(settings: Settings) -> tuple[set[str], bool]:
    app = create_app(settings, areas=AREAS)
    tasks = [getattr(task, "__wrapped__", task) for task in app._app_tasks]
    names = {getattr(task, "__name__", "") for task in tasks}
    return names, any(isinstance(service, TableMaintainer) for service in app._extra_services)


def test_every_worker_runs_the_rounds_unless_automatic_maintenance_is_off(tmp_path: Path) -> None:
    on = Settings(data_dir=tmp_path / "on", kafka_bootstrap="127.0.0.1:9")
    assert on.auto_maintenance and on.maintenance_interval_seconds == 300 and on.compact_small_files == 64
    names, service = _maintenance_tasks(on)
    assert "maintain_tables" in names and service
    off = Settings(data_dir=tmp_path / "off", kafka_bootstrap="127.0.0.1:9", auto_maintenance=False)
    names, service = _maintenance_tasks(off)
    assert "maintain_tables" not in names and not service
