"""`@@{variableName}` substitution in handler inputs."""

from __future__ import annotations

import pytest

from core.webhooks.substitute import referenced_variables, substitute

pytestmark = pytest.mark.unit

VARIABLES = {"orderId": "ord_1", "total": "42", "email": "a@example.com", "order.id": "dotted", "empty": ""}


def test_replaces_in_nested_strings_but_not_keys() -> None:
    config = {
        "@@{orderId}": "key stays",
        "userMessage": "Order @@{orderId} totals @@{total}.",
        "variables": {"to": "@@{email}", "list": ["@@{total}", {"deep": "x@@{orderId}y"}]},
    }
    assert substitute(config, VARIABLES) == {
        "@@{orderId}": "key stays",
        "userMessage": "Order ord_1 totals 42.",
        "variables": {"to": "a@example.com", "list": ["42", {"deep": "xord_1y"}]},
    }


def test_the_input_is_not_modified() -> None:
    config = {"a": ["@@{total}"]}
    substitute(config, VARIABLES)
    assert config == {"a": ["@@{total}"]}


def test_an_exact_reference_stays_a_string() -> None:
    assert substitute({"amount": "@@{total}"}, VARIABLES) == {"amount": "42"}
    assert substitute("@@{total}", VARIABLES) == "42"


def test_other_types_pass_through() -> None:
    value = {"n": 1, "f": 1.5, "b": True, "none": None, "t": ("@@{total}", 2)}
    assert substitute(value, VARIABLES) == {"n": 1, "f": 1.5, "b": True, "none": None, "t": ("42", 2)}


def test_unknown_names_are_left_as_written() -> None:
    assert substitute("a @@{missing} b @@{total}", VARIABLES) == "a @@{missing} b 42"


def test_empty_values_replace_too() -> None:
    assert substitute("[@@{empty}]", VARIABLES) == "[]"


def test_values_are_not_expanded_again() -> None:
    variables = {"a": "@@{b}", "b": "secret", "c": "\\1 \\g<0>"}
    assert substitute("@@{a}|@@{c}", variables) == "@@{b}|\\1 \\g<0>"


def test_names_may_contain_dots_and_dashes() -> None:
    assert substitute("@@{order.id}", VARIABLES) == "dotted"
    assert substitute("@@{order-id}", {"order-id": "dashed"}) == "dashed"


@pytest.mark.parametrize(
    "text", ["@@{1abc}", "@@{}", "@@{a b}", "@{total}", "@@total", "@@{total", "@@ {total}"]
)
def test_malformed_references_are_not_touched(text: str) -> None:
    assert substitute(text, VARIABLES) == text


def test_adjacent_and_repeated_references() -> None:
    assert substitute("@@{total}@@{total}@@@{total}}", VARIABLES) == "4242@42}"


def test_referenced_variables() -> None:
    config = {
        "@@{keyName}": "@@{a} and @@{b.c}",
        "list": ["@@{a}", {"x": "@@{d-e}"}, 5, None, ("@@{f}",)],
        "bad": "@@{1x} @@{}",
    }
    assert referenced_variables(config) == {"a", "b.c", "d-e", "f"}
    assert referenced_variables("plain") == set()
    assert referenced_variables(None) == set()
