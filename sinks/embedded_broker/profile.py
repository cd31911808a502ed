"""The client tuning each broker profile stands for (``SVC_BROKER_PROFILE``): the worker's fetch waits and the
producer's pace. Constants of the profile, not settings; only the idle fetch wait can be set
(``SVC_KAFKA_FETCH_MAX_WAIT_MS``), for a machine that runs many idle stacks (the test suite)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from schemas.settings import BrokerProfile, Settings


@dataclass(frozen=True)
class ClientTuning:
    # A fetch that finds no record waits this long at the broker.
    idle_wait_ms: int
    # While records keep arriving (within busy_seconds of a fetch that brought some), fetches wait this long.
    busy_wait_ms: int
    busy_seconds: float
    # After a fetch that brought a heavy stream's records, the next ones wait this long (fewer, fuller).
    loaded_wait_ms: int
    # After quiet_after_seconds without a record, fetches wait this long: an idle stack stops polling.
    quiet_wait_ms: int
    quiet_after_seconds: float
    # After a query job ends in a worker, fetches stay busy this long (not busy_seconds).
    busy_after_query_seconds: float
    # Sends to the webhook delivery topic at least this far apart (client.BatchPacer); 0: no pacing.
    batch_pace_ms: int


# The embedded broker holds an empty fetch for its whole wait, so the idle wait is short and busy streams poll
# quicker; Kafka answers a waiting fetch the moment a record arrives, so a long wait costs no latency.
TUNING: dict[BrokerProfile, ClientTuning] = {
    BrokerProfile.EMBEDDED: ClientTuning(
        idle_wait_ms=20,
        busy_wait_ms=2,
        busy_seconds=2.0,
        loaded_wait_ms=20,
        quiet_wait_ms=500,
        quiet_after_seconds=10.0,
        busy_after_query_seconds=0.25,
        batch_pace_ms=5,
    ),
    BrokerProfile.KAFKA: ClientTuning(
        idle_wait_ms=500,
        busy_wait_ms=500,
        busy_seconds=0.0,
        loaded_wait_ms=500,
        quiet_wait_ms=500,
        quiet_after_seconds=0.0,
        busy_after_query_seconds=0.0,
        batch_pace_ms=5,
    ),
}


def tuning_of(settings: Settings) -> ClientTuning:
    """The profile's tuning, with the idle wait the settings give, if any; no wait is longer than the idle one
    but the quiet wait, which is never shorter."""
    tuning = TUNING[settings.broker_profile]
    idle = settings.kafka_fetch_max_wait_ms
    if idle is None:
        return tuning
    return replace(
        tuning,
        idle_wait_ms=idle,
        busy_wait_ms=min(tuning.busy_wait_ms, idle),
        loaded_wait_ms=min(tuning.loaded_wait_ms, idle),
        quiet_wait_ms=max(tuning.quiet_wait_ms, idle),
    )
