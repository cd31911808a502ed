"""Topic names (without the configured prefix) and what flows through each."""

from __future__ import annotations

from typing import Final

WEBHOOK_DELIVERIES: Final = "webhook.deliveries"
WEBHOOK_RESULTS: Final = "webhook.results"
SCHEDULE_TICKS: Final = "schedule.ticks"
ANALYTICS_JOBS: Final = "analytics.jobs"
TABLE_APPENDS: Final = "table.appends"
# Scheduled runs that ended FAILED after their retries, for events with deadLetterConfig enabled.
SCHEDULED_DEAD_LETTER: Final = "scheduled.dead-letter"

ALL_TOPICS: Final[tuple[str, ...]] = (
    WEBHOOK_DELIVERIES,
    WEBHOOK_RESULTS,
    SCHEDULE_TICKS,
    ANALYTICS_JOBS,
    TABLE_APPENDS,
    SCHEDULED_DEAD_LETTER,
)


def generation_topic(topic: str, generation: int) -> str:
    """The name of ``topic`` (in full, prefix included) in ``generation`` of the embedded broker's renewal
    (sinks/embedded_broker/rotation.py): generation 0 keeps the plain name."""
    return topic if generation == 0 else f"{topic}.g{generation}"
