"""The worker's side of a renewal: its agents read the topic generations the signal names.

An agent's topic is built with the generations read at the worker's start (:func:`topic_names`); a timer then
follows the signal and, when it changes, gives each agent's channels the new names and asks Faust's conductor
to subscribe again. Faust's aiokafka driver does not take pattern subscriptions, so the names are listed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import faust

from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, generation_topic
from sinks.embedded_broker.generations import GenerationSignal

log = logging.getLogger(__name__)
# How often a worker looks at the signal: a new generation is read this much later at most, plus the
# conductor's wait below and one rebalance.
FOLLOW_SECONDS = 0.25
# The conductor waits this long after a change before it subscribes again (Faust's own: 45 s), so changes
# in quick succession make one rebalance.
RESUBSCRIBE_SECONDS = 0.5


def signal_of(settings: Settings) -> GenerationSignal:
    """The signal ``svc up`` names to its workers; generation 0 for ever without one."""
    return GenerationSignal.open(settings.embedded_broker_signal_file)


def topic_names(settings: Settings, name: str, signal: GenerationSignal) -> list[str]:
    """The full names of the svc topic ``name`` (unprefixed) in the generations read now."""
    return [generation_topic(settings.topic(name), generation) for generation in signal.current().read]


def retarget(channels: Iterable[Any], settings: Settings, read: range) -> bool:
    """Give each channel reading an svc topic that topic's names in the generations ``read``; whether any
    changed."""
    bases = {settings.topic(name) for name in ALL_TOPICS}
    changed = False
    for channel in channels:
        names = list(getattr(channel, "topics", ()) or ())
        base = next((b for b in bases if any(n == b or n.startswith(f"{b}.g") for n in names)), None)
        if base is None:
            continue
        wanted = [generation_topic(base, generation) for generation in read]
        if names != wanted:
            channel.topics = wanted
            changed = True
    return changed


def follow_generations(app: faust.App, settings: Settings, signal: GenerationSignal) -> None:
    """Register the timer that keeps the agents' topics on the signal's generations."""
    conductor = app.topics
    conductor._resubscribe_sleep_lock_seconds = RESUBSCRIBE_SECONDS  # type: ignore[attr-defined]
    seen = {"read": signal.current().read}

    @app.timer(interval=FOLLOW_SECONDS)  # type: ignore[untyped-decorator]
    async def follow_topic_generations() -> None:
        read = signal.current().read
        if read == seen["read"]:
            return
        seen["read"] = read
        channels = [*conductor, *(agent.channel for agent in app.agents.values())]
        if retarget(channels, settings, read):
            log.info("reading other topic generations", extra={"generations": [read.start, read.stop - 1]})
            conductor._flag_changes()  # type: ignore[attr-defined]


def highwater_of_assigned(self: Any, tp: Any) -> int | None:
    """Faust's ``AIOKafkaConsumerThread.highwater`` that answers None for a partition a rebalance has just
    taken away: Faust asks for the high watermark of every record it hands out, and a subscription change
    (a renewal) can revoke a partition while records it already fetched are still being handed out, where
    aiokafka's assertion crashed the worker's fetcher. The record is read again by the partition's new owner
    (at least once)."""
    consumer = self._ensure_consumer()
    if self.consumer.in_transaction:
        return int(consumer.last_stable_offset(tp))
    if not consumer._subscription.is_assigned(tp):
        return None
    highwater: int | None = consumer.highwater(tp)
    return highwater
