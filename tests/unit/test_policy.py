"""When one caller's effective policy is at least as broad as the one a job ran with (core/policy.py)."""

from __future__ import annotations

import pytest

from core.policy import (
    TablePolicy,
    at_least_as_broad,
    dumps,
    loads,
    normalized_row_filter,
    shortfalls,
    table_shortfall,
)

pytestmark = pytest.mark.unit

EVERYTHING = TablePolicy()
BOB = TablePolicy(row_filter="customer = 'bob'", hidden_columns=frozenset({"amount"}))


def test_an_admin_policy_covers_any_runner() -> None:
    assert table_shortfall(EVERYTHING, BOB) is None
    assert table_shortfall(EVERYTHING, EVERYTHING) is None
    revealing = TablePolicy(revealable=frozenset({"email"}))
    assert (
        table_shortfall(TablePolicy(revealable=frozenset({"email"})), revealing, frozenset({"email"})) is None
    )


def test_an_equal_policy_covers_its_twin_whatever_the_spelling() -> None:
    twin = TablePolicy(row_filter="customer='bob'", hidden_columns=frozenset({"amount"}))
    assert table_shortfall(twin, BOB) is None
    assert normalized_row_filter("customer  =  'bob'") == normalized_row_filter("customer = 'bob'")


def test_a_row_filter_the_runner_did_not_have_is_narrower() -> None:
    assert table_shortfall(BOB, EVERYTHING) == "your row filter differs from the one the job ran with"


def test_a_different_row_filter_is_narrower_even_when_it_looks_wider() -> None:
    wider = TablePolicy(row_filter="customer IN ('bob', 'alice')", hidden_columns=frozenset({"amount"}))
    assert table_shortfall(wider, BOB) is not None
    other_value = TablePolicy(row_filter="customer = 'Bob'", hidden_columns=frozenset({"amount"}))
    assert table_shortfall(other_value, BOB) is not None


def test_no_row_filter_covers_a_filtered_runner() -> None:
    assert table_shortfall(TablePolicy(hidden_columns=frozenset({"amount"})), BOB) is None


def test_hidden_columns_must_be_a_subset_of_the_runners() -> None:
    assert table_shortfall(TablePolicy(), BOB) is None
    more_hidden = TablePolicy(row_filter="customer = 'bob'", hidden_columns=frozenset({"amount", "note"}))
    assert table_shortfall(more_hidden, BOB) == "columns hidden from you: note"
    assert table_shortfall(TablePolicy(hidden_columns=frozenset({"amount"})), EVERYTHING) is not None


def test_reveal_rights_count_only_where_the_output_carries_revealed_values() -> None:
    runner = TablePolicy(revealable=frozenset({"email"}))
    reader = TablePolicy()
    assert table_shortfall(reader, runner) is None
    assert table_shortfall(reader, runner, frozenset({"email"})) == "you may not reveal: email"
    assert table_shortfall(TablePolicy(revealable=frozenset({"email"})), runner, frozenset({"email"})) is None


def test_every_table_must_be_covered_and_an_unreadable_table_is_narrower() -> None:
    runner = {"t1": EVERYTHING, "t2": BOB}
    assert at_least_as_broad({"t1": EVERYTHING, "t2": EVERYTHING}, runner)
    assert shortfalls({"t1": EVERYTHING, "t2": None}, runner) == {"t2": "you have no READ grant on it"}
    assert set(shortfalls({"t2": BOB}, runner)) == {"t1"}
    assert shortfalls({"t1": BOB, "t2": BOB}, runner) == {
        "t1": "your row filter differs from the one the job ran with"
    }
    assert not at_least_as_broad({"t1": EVERYTHING, "t2": BOB}, runner, {"t2": frozenset({"email"})})


def test_a_stored_policy_round_trips() -> None:
    policy = {"t1": BOB, "t2": TablePolicy(revealable=frozenset({"email", "phone"}))}
    assert loads(dumps(policy)) == policy
    assert loads(dumps({})) == {}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        '{"v": 2, "tables": {}}',
        '{"v": 1}',
        '{"v": 1, "tables": {"t": {"rowFilter": 3, "hiddenColumns": [], "revealable": []}}}',
        '{"v": 1, "tables": {"t": {"rowFilter": null, "hiddenColumns": "amount", "revealable": []}}}',
        '{"v": 1, "tables": {"t": {"rowFilter": null}}}',
    ],
)
def test_anything_else_is_not_a_stored_policy(text: str) -> None:
    with pytest.raises(ValueError, match="not a stored policy"):
        loads(text)
