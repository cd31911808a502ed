"""The embedded broker's absence as ``svc up`` writes it and the ingress reads it (sinks/broker_absence.py),
and a publisher that does not try while it is away."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from schemas.deliveries import DeliveryTask
from schemas.settings import Settings
from sinks.broker_absence import BrokerAbsence, BrokerAbsenceNotice
from sinks.exceptions import BrokerAway
from sinks.kafka import Publisher

pytestmark = pytest.mark.unit


def test_the_reader_sees_each_change_the_notice_writes(tmp_path: Path) -> None:
    notice = BrokerAbsenceNotice(tmp_path / "absence")
    reader = BrokerAbsence.open(notice.path)
    try:
        assert not reader.away()
        notice.set_away(True)
        assert reader.away()
        notice.set_away(False)
        assert not reader.away()
    finally:
        reader.close()
        notice.close()


def test_a_notice_starts_present_whatever_a_previous_run_left(tmp_path: Path) -> None:
    path = tmp_path / "absence"
    path.write_bytes(b"\x01")
    notice = BrokerAbsenceNotice(path)
    try:
        assert not BrokerAbsence.open(path).away()
    finally:
        notice.close()


@pytest.mark.parametrize("content", [None, b""])
def test_no_file_or_an_empty_one_is_never_away(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "absence"
    if content is not None:
        path.write_bytes(content)
    assert not BrokerAbsence.open(path).away()
    assert not BrokerAbsence.open(None).away()


def test_a_publisher_does_not_try_while_the_broker_is_away(tmp_path: Path) -> None:
    notice = BrokerAbsenceNotice(tmp_path / "absence")
    notice.set_away(True)
    # Never started and pointed at a closed port: only the absence can answer at once.
    publisher = Publisher(Settings(kafka_bootstrap="127.0.0.1:9"), absence=BrokerAbsence.open(notice.path))
    task = DeliveryTask(entry_id="e", execution_id="x", webhook_id="w", company_id="c", attempt_number=1)
    with pytest.raises(BrokerAway):
        asyncio.run(publisher.publish_record(task))
    notice.close()
