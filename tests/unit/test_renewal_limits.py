"""When the embedded broker is renewed (sinks/embedded_broker/renewal_limits.py), and how long work stays
QUEUED before a reconciler publishes it again after a broker restarted after a crash
(Settings.queued_grace_at)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.settings import Settings
from sinks.embedded_broker.renewal_limits import RenewalLimits, may_renew, renewal_reason

pytestmark = pytest.mark.unit

LIMITS = RenewalLimits(records_per_partition=3000, resident_mib=2048, min_interval_seconds=120)
SHORT = {("svc.webhook.deliveries", 0): 10, ("svc.table.appends", 3): 2999}


def test_short_partitions_and_little_memory_keep_the_broker() -> None:
    assert renewal_reason(SHORT, 300.0, LIMITS) is None
    assert renewal_reason({}, None, LIMITS) is None


def test_the_longest_partition_is_named() -> None:
    offsets = {**SHORT, ("svc.webhook.deliveries", 7): 3000, ("svc.schedule.ticks", 1): 3500}
    assert renewal_reason(offsets, 10.0, LIMITS) == "partition 1 of svc.schedule.ticks holds 3500 records"


def test_memory_alone_is_a_reason() -> None:
    assert renewal_reason(SHORT, 2048.4, LIMITS) == "the broker holds 2048 MiB"
    assert renewal_reason(SHORT, None, LIMITS) is None  # unknown memory decides nothing


def test_a_limit_of_zero_is_off() -> None:
    off = RenewalLimits(records_per_partition=0, resident_mib=0, min_interval_seconds=0)
    assert renewal_reason({("t", 0): 10**9}, 10.0**6, off) is None


def test_renewals_are_spaced() -> None:
    assert may_renew(None, 5.0, LIMITS)
    assert not may_renew(100.0, 219.9, LIMITS)
    assert may_renew(100.0, 220.0, LIMITS)


def test_queued_grace_is_the_setting_without_a_broker_start() -> None:
    settings = Settings(queued_grace_seconds=30)
    assert settings.queued_grace_at(datetime.now(UTC)) == timedelta(seconds=30)


def test_work_queued_before_a_restarted_broker_is_lost_at_once() -> None:
    started = datetime(2026, 11, 27, 5, 0, tzinfo=UTC)
    settings = Settings(queued_grace_seconds=30, broker_started_at=started)
    # Everything queued before the broker started (now - grace = the broker's start) is due again.
    assert settings.queued_grace_at(started + timedelta(seconds=4)) == timedelta(seconds=4)
    assert settings.queued_grace_at(started + timedelta(minutes=5)) == timedelta(seconds=30)
    assert settings.queued_grace_at(started - timedelta(seconds=1)) == timedelta(0)  # a clock behind


def test_a_broker_start_without_a_zone_is_utc() -> None:
    settings = Settings.model_validate({"broker_started_at": "2026-11-27T05:00:00"})
    assert settings.broker_started_at == datetime(2026, 11, 27, 5, 0, tzinfo=UTC)
