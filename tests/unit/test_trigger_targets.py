"""The trigger's short-lived webhook cache: what is kept, for how long, and what forgetting does."""

from collections.abc import Callable

import pytest

from ingress.webhooks.trigger_targets import TriggerTargets
from sinks.db.webhooks.deliveries import TriggerTarget

pytestmark = pytest.mark.unit


def _target(webhook_id: str, enabled: bool = True) -> TriggerTarget:
    return TriggerTarget(webhook_id, "c1", "hook", enabled, {}, "k1", "digest", True)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Rows:
    """The database: the rows by webhook id, and how many reads were made."""

    def __init__(self) -> None:
        self.rows: dict[str, TriggerTarget] = {"w1": _target("w1"), "w2": _target("w2")}
        self.reads = 0

    def load(self, webhook_id: str) -> TriggerTarget | None:
        self.reads += 1
        return self.rows.get(webhook_id)


def test_a_found_row_is_kept_for_its_seconds() -> None:
    clock, rows = Clock(), Rows()
    cache = TriggerTargets(1.0, clock=clock)
    assert cache.get("w1", rows.load) == _target("w1")
    rows.rows["w1"] = _target("w1", enabled=False)
    clock.now += 0.99
    assert cache.get("w1", rows.load) == _target("w1") and rows.reads == 1
    clock.now += 0.02
    assert cache.get("w1", rows.load) == _target("w1", enabled=False) and rows.reads == 2


def test_a_missing_webhook_is_read_every_time() -> None:
    rows = Rows()
    cache = TriggerTargets(1.0, clock=Clock())
    assert cache.get("nope", rows.load) is None
    rows.rows["nope"] = _target("nope")
    assert cache.get("nope", rows.load) == _target("nope") and rows.reads == 2


def test_forget_one_or_all() -> None:
    rows = Rows()
    cache = TriggerTargets(1.0, clock=Clock())
    cache.get("w1", rows.load), cache.get("w2", rows.load)
    cache.forget("w1")
    cache.get("w1", rows.load), cache.get("w2", rows.load)
    assert rows.reads == 3
    cache.forget()
    cache.get("w1", rows.load), cache.get("w2", rows.load)
    assert rows.reads == 5


def test_a_row_read_while_it_is_being_forgotten_is_not_kept() -> None:
    rows, cache = Rows(), TriggerTargets(1.0, clock=Clock())

    def load_then_change(webhook_id: str) -> TriggerTarget | None:
        found = rows.load(webhook_id)
        rows.rows[webhook_id] = _target(webhook_id, enabled=False)  # a change commits meanwhile ...
        cache.forget(webhook_id)  # ... and forgets the webhook
        return found

    assert cache.get("w1", load_then_change) == _target("w1")
    assert cache.get("w1", rows.load) == _target("w1", enabled=False)


def test_zero_seconds_reads_every_time() -> None:
    rows = Rows()
    cache = TriggerTargets(0.0, clock=Clock())
    for _ in range(3):
        cache.get("w1", rows.load)
    assert rows.reads == 3


def test_the_cache_is_bounded() -> None:
    rows = Rows()
    rows.rows.update({f"x{i}": _target(f"x{i}") for i in range(5)})
    cache = TriggerTargets(1.0, max_entries=3, clock=Clock())
    load: Callable[[str], TriggerTarget | None] = rows.load
    for i in range(5):
        cache.get(f"x{i}", load)
    assert len(cache._kept) == 3
    for i in (4, 3, 2):  # the three read last are kept ...
        cache.get(f"x{i}", load)
    assert rows.reads == 5
    cache.get("x0", load)  # ... and the first was not
    assert rows.reads == 6
