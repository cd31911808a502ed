"""The step budget of a filter match (core/filters.py): a costly match stops instead of running on."""

from __future__ import annotations

from typing import Any

import pytest

from core.filters import MAX_MATCH_STEPS, FilterTooCostly, matches
from schemas.filters import FilterConfig

pytestmark = pytest.mark.unit


def _match(config: dict[str, Any], body: Any, max_steps: int | None) -> bool:
    return matches(FilterConfig.model_validate(config), body=body, headers={}, query={}, max_steps=max_steps)


# Each would take millions of comparisons to the end: a wide $in, a filter array, ordering and affix tests
# over a large array value.
COSTLY: list[tuple[dict[str, Any], Any]] = [
    ({"body": {"a": {"$in": list(range(1500))}}}, {"a": list(range(-100_000, 0))}),
    ({"body": {"a": [0] * 1000 + [1]}}, {"a": [2] * 100_000 + [0]}),
    ({"body": {"a": {"$or": [{"$gt": n} for n in range(150)]}}}, {"a": list(range(-100_000, 0))}),
    ({"body": {"a": {"$startsWith": ["zz" * 10] * 400}}}, {"a": ["z"] * 100_000}),
    ({"body": {"a": {"b": {"$in": ["x"] * 1000}}}}, {"a": [{"b": "y"}] * 100_000}),
]


@pytest.mark.parametrize(("config", "body"), COSTLY)
def test_a_costly_match_stops_at_its_budget(config: dict[str, Any], body: Any) -> None:
    with pytest.raises(FilterTooCostly, match=f"more than {MAX_MATCH_STEPS} comparisons"):
        _match(config, body, MAX_MATCH_STEPS)


def test_the_budget_counts_comparisons_not_calls() -> None:
    config = {"body": {"tags": {"$in": ["a", "b", "c"]}}}
    body = {"tags": ["x", "y", "c"]}
    # A step for the body and one for the field, then each element against each member until the match.
    assert _match(config, body, 2 + 3 + 3 + 3) is True
    with pytest.raises(FilterTooCostly):
        _match(config, body, 2 + 3 + 3 + 2)


def test_a_long_substring_search_costs_more_than_one_step() -> None:
    config = {"body": {"text": {"$in": "needle"}}}
    body = {"text": "hay" * 200_000}  # 600,000 characters: 10 steps of 64 KiB
    assert _match(config, body, 20) is False
    with pytest.raises(FilterTooCostly):
        _match(config, body, 5)


def test_within_the_budget_the_answer_is_the_unbudgeted_one() -> None:
    config = {"body": {"type": {"$in": ["order.paid", "order.refunded"]}, "order": {"total": {"$gte": 100}}}}
    for body in (
        {"type": "order.paid", "order": {"total": 120}},
        {"type": "order.paid", "order": {"total": 5}},
    ):
        assert _match(config, body, MAX_MATCH_STEPS) == _match(config, body, None)


def test_real_filters_take_few_steps() -> None:
    """A Stripe-shaped event against a filter of the kind users write: far below the event loop's share."""
    event = {
        "id": "evt_1",
        "type": "invoice.paid",
        "data": {"object": {"lines": {"data": [{"price": {"recurring": {"interval": "month"}}}] * 50}}},
    }
    config = {
        "body": {
            "type": {"$startsWith": "invoice."},
            "data": {"object": {"lines": {"data": {"price": {"recurring": {"interval": "month"}}}}}},
        }
    }
    assert _match(config, event, 50) is True
