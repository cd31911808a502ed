"""Destinations in the Prometheus metrics: how many are in each circuit state, and how many deliveries wait
for one, read from the metadata DB when the operator's scraper asks (docs/operations.md#metrics).

Every process of the ingress answers the same service-wide figures (they live in the database), so a
dashboard takes one process's value (``max``), not their sum."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy.orm import Session, sessionmaker

from core.webhooks.destinations import Circuit
from sinks.db.webhooks import destinations

log = logging.getLogger(__name__)


class DestinationGauges(Collector):
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            with self._sessions() as session:
                states, waiting = destinations.census(session)
        except Exception as exc:  # a scrape while the database is away answers without these
            log.warning("destination metrics not read", extra={"error": type(exc).__name__})
            return
        by_state = GaugeMetricFamily(
            "svc_destinations",
            "Handler resources by circuit state (those called at least once)",
            labels=["state"],
        )
        for circuit in Circuit:
            by_state.add_metric([circuit.value], states.get(circuit.value, 0))
        yield by_state
        yield GaugeMetricFamily(
            "svc_deliveries_waiting",
            "Deliveries waiting for their destination's limits or circuit",
            value=waiting,
        )
