"""Fair shares of a worker's slots across companies (core/webhooks/fair_share.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from core.webhooks import fair_share


@dataclass(frozen=True)
class Task:
    company_id: str
    n: int = 0


def tasks(company: str, count: int) -> list[Task]:
    return [Task(company, n) for n in range(count)]


def test_one_company_alone_may_use_every_slot_and_waits_past_them() -> None:
    go, wait = fair_share.split(tasks("a", 10), Counter(), [], slots=8, free=8)
    assert len(go) == 8 and wait == tasks("a", 10)[8:]


def test_a_company_at_its_share_waits_once_the_pool_is_full_and_another_goes() -> None:
    held = Counter({"a": 8})
    go, wait = fair_share.split(tasks("a", 3) + tasks("b", 2), held, [], slots=8, free=0)
    assert go == tasks("b", 2)  # b is under its share of 4: it goes and waits for a slot a gives back
    assert wait == tasks("a", 3)


def test_free_slots_are_never_kept_idle_for_the_share() -> None:
    held = Counter({"a": 5, "b": 1})
    go, wait = fair_share.split(tasks("a", 4), held, [], slots=8, free=2)
    assert go == tasks("a", 4)[:2] and wait == tasks("a", 4)[2:]


def test_the_companies_wanting_a_slot_count_among_those_sharing() -> None:
    held = Counter({"a": 3})
    go, wait = fair_share.split(tasks("a", 2), held, ["b", "c"], slots=9, free=0)
    assert go == [] and wait == tasks("a", 2)  # a's share of 9 among three is 3


def test_a_company_over_its_share_gives_its_slot_back_while_another_wants_one() -> None:
    held = Counter({"a": 8})
    assert fair_share.keeps_slot("a", held, Counter(), slots=8)  # nobody else wants a slot
    assert not fair_share.keeps_slot("a", held, Counter({"b": 1}), slots=8)
    assert fair_share.keeps_slot("a", Counter({"a": 4, "b": 4}), Counter({"b": 1}), slots=8)
    assert fair_share.keeps_slot("b", Counter({"a": 7, "b": 1}), Counter({"b": 1}), slots=8)


def test_the_marker_names_a_company_and_never_a_destination() -> None:
    assert fair_share.company_of(fair_share.marker("c1")) == "c1"
    assert fair_share.company_of("0190a7c2d3e4f5a6b7c8d9e0f1a2b3c4") is None
    assert fair_share.share(8, 3) == 2 and fair_share.share(2, 5) == 1
