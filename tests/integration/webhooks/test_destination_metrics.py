"""The destinations in the Prometheus metrics: one gauge per circuit state, counted from the states the
workers write, and the deliveries waiting for a destination."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from core.webhooks.destinations import Breaker, Outcome
from ingress.webhooks.destination_metrics import DestinationGauges
from sinks.db.webhooks import delivery_attempts, destinations
from tests.fixtures.stack import Db
from tests.integration.webhooks.delivery_helpers import limited_deliveries

LIMIT = 2

pytestmark = pytest.mark.integration


def _scraped(db: Db) -> str:
    registry = CollectorRegistry()
    registry.register(DestinationGauges(db.sessions))
    return generate_latest(registry).decode()


def test_the_gauges_count_destinations_by_state_and_the_waiting_deliveries(db: Db) -> None:
    assert 'svc_destinations{state="OPEN"} 0.0' in _scraped(db)
    tasks = limited_deliveries(db, LIMIT, LIMIT + 3)
    now = datetime.now(UTC)
    with db.sessions.begin() as session:
        running = delivery_attempts.claim(session, tasks, now, breaker=Breaker())
    destination = running[0].destination
    assert destination is not None
    failed = [(destination, Outcome(False, "boom", None))] * 3
    with db.sessions.begin() as session:
        destinations.record_outcomes(session, failed, now, Breaker(failures=3))
    scraped = _scraped(db)
    assert 'svc_destinations{state="OPEN"} 1.0' in scraped
    assert 'svc_destinations{state="CLOSED"} 0.0' in scraped
    assert "svc_deliveries_waiting 3.0" in scraped
