"""Payload transforms: JSONPath mappings and transform scripts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.webhooks.transform import (
    CompiledMappings,
    TransformConfigError,
    TransformError,
    apply_jsonpath,
    compile_jsonpath_mappings,
    delivery_document,
    encode_value,
)

pytestmark = pytest.mark.unit

ORDER = {
    "id": "ord_1",
    "total": 42,
    "ratio": 0.5,
    "paid": True,
    "coupon": None,
    "customer": {"email": "a@example.com", "tags": ["vip"]},
    "items": [{"sku": "A", "price": 5}, {"sku": "B", "price": 150}, {"sku": "C", "price": 250}],
    "text": "héllo ☕",
}
BODY = json.dumps(ORDER)


# ---- compiling mappings ----------------------------------------------------------------------------------


def test_compile_keeps_order_and_expressions() -> None:
    compiled = compile_jsonpath_mappings({"b": "$.id", "a": "$.total"})
    assert isinstance(compiled, CompiledMappings)
    assert [(name, expression, steps) for name, expression, _, steps in compiled.entries] == [
        ("b", "$.id", ("id",)),
        ("a", "$.total", ("total",)),
    ]
    assert len(compiled) == 2


@pytest.mark.parametrize("name", ["", "1abc", "with space", "a$b", "é", "@@{x}", "-lead"])
def test_compile_refuses_bad_variable_names(name: str) -> None:
    with pytest.raises(TransformConfigError, match="Invalid variable name") as caught:
        compile_jsonpath_mappings({name: "$.id"})
    assert caught.value.variable == name


@pytest.mark.parametrize("name", ["a", "_x", "order.id", "order-id", "A1_b.c-d"])
def test_compile_accepts_good_variable_names(name: str) -> None:
    assert len(compile_jsonpath_mappings({name: "$.id"})) == 1


@pytest.mark.parametrize("expression", ["$.[", "$..", "$.items[?(@.price >]", "@@@", "$.a b"])
def test_compile_names_the_variable_and_the_bad_expression(expression: str) -> None:
    with pytest.raises(TransformConfigError) as caught:
        compile_jsonpath_mappings({"good": "$.id", "broken": expression})
    assert caught.value.variable == "broken"
    assert caught.value.expression == expression
    assert "'broken'" in str(caught.value)
    assert repr(expression) in str(caught.value)


@pytest.mark.parametrize("expression", ["", "   ", None, 5])
def test_compile_refuses_missing_expressions(expression: Any) -> None:
    with pytest.raises(TransformConfigError, match="'v' needs a JSONPath expression"):
        compile_jsonpath_mappings({"v": expression})


def test_config_errors_are_transform_errors() -> None:
    assert issubclass(TransformConfigError, TransformError)


# ---- evaluating mappings ---------------------------------------------------------------------------------


def test_values_are_encoded_as_strings() -> None:
    mappings = {
        "id": "$.id",
        "total": "$.total",
        "ratio": "$.ratio",
        "paid": "$.paid",
        "coupon": "$.coupon",
        "customer": "$.customer",
        "tags": "$.customer.tags",
        "text": "$.text",
    }
    assert apply_jsonpath(mappings, BODY, {}, "application/json") == {
        "id": "ord_1",
        "total": "42",
        "ratio": "0.5",
        "paid": "true",
        "coupon": "null",
        "customer": '{"email":"a@example.com","tags":["vip"]}',
        "tags": '["vip"]',
        "text": "héllo ☕",
    }


def test_no_match_gives_an_empty_string_and_several_give_a_json_array() -> None:
    mappings = {
        "missing": "$.nope.deeper",
        "skus": "$.items[*].sku",
        "prices": "$..price",
        "one": "$.items[0].sku",
    }
    assert apply_jsonpath(mappings, BODY, {}, None) == {
        "missing": "",
        "skus": '["A","B","C"]',
        "prices": "[5,150,250]",
        "one": "A",
    }


def test_filters_work() -> None:
    mappings = {"expensive": "$.items[?(@.price > 100)].sku", "cheap": "$.items[?(@.price < 10)].sku"}
    assert apply_jsonpath(mappings, BODY, {}, None) == {"expensive": '["B","C"]', "cheap": "A"}


def test_compiled_mappings_can_be_reused() -> None:
    compiled = compile_jsonpath_mappings({"id": "$.id"})
    assert apply_jsonpath(compiled, BODY, {}, None) == {"id": "ord_1"}
    assert apply_jsonpath(compiled, '{"id": 3}', {}, None) == {"id": "3"}


@pytest.mark.parametrize("body", ["", "   \n"])
def test_an_empty_body_maps_the_query_parameters(body: str) -> None:
    query = {"resourceId": "12", "event": "signup", "user": "u1"}
    mappings = {"event": "$.event", "user": "$.user", "absent": "$.nothing"}
    assert apply_jsonpath(mappings, body, query, None) == {"event": "signup", "user": "u1", "absent": ""}


def test_a_form_body_maps_its_fields() -> None:
    body = "command=%2Fweather&text=94070&channel=a&channel=b&empty="
    mappings = {"command": "$.command", "text": "$.text", "channels": "$.channel", "empty": "$.empty"}
    result = apply_jsonpath(mappings, body, {}, "application/x-www-form-urlencoded; charset=utf-8")
    assert result == {"command": "/weather", "text": "94070", "channels": '["a","b"]', "empty": ""}


@pytest.mark.parametrize("body", ["not json", "{'single': 'quotes'}", '{"a": 1', "[1, 2,]"])
def test_a_body_that_is_not_json_fails(body: str) -> None:
    with pytest.raises(TransformError, match=r"^Request body is not valid JSON: .* at line 1 column \d+$"):
        apply_jsonpath({"a": "$.a"}, body, {}, "application/json")


@pytest.mark.parametrize("body", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}'])
def test_non_standard_json_constants_are_refused(body: str) -> None:
    with pytest.raises(TransformError, match="not valid JSON"):
        apply_jsonpath({"a": "$.a"}, body, {}, None)


def test_absurdly_nested_bodies_fail_cleanly() -> None:
    with pytest.raises(TransformError, match="nested too deeply"):
        apply_jsonpath({"a": "$.a"}, "[" * 100_000 + "]" * 100_000, {}, None)
    deep = '{"a":' * 300 + "1" + "}" * 300
    result = apply_jsonpath({"all": "$..a"}, deep, {}, None)
    assert result["all"].startswith("[")


def test_variables_of_one_delivery_have_a_size_budget() -> None:
    # Every match of `$..a` is the whole subtree below it: quadratic in the depth of the document.
    deep = '{"a":' * 900 + "1" + "}" * 900
    with pytest.raises(TransformError, match=r"JSONPath results exceed 1048576 bytes at variable 'all'"):
        apply_jsonpath({"all": "$..a"}, deep, {}, None)
    # Two times the body, at least 1 MiB: the whole body fits twice, not three times.
    body = json.dumps({"a": "x" * 700_000}, separators=(",", ":"))
    assert len(apply_jsonpath({"one": "$", "two": "$.a"}, body, {}, None)["one"]) == len(body)
    with pytest.raises(TransformError, match="at variable 'three'"):
        apply_jsonpath({"one": "$", "two": "$", "three": "$"}, body, {}, None)


def test_the_error_does_not_quote_the_body() -> None:
    with pytest.raises(TransformError) as caught:
        apply_jsonpath({"a": "$.a"}, "secret-token-value trailing", {}, None)
    assert "secret" not in str(caught.value)


def test_a_scalar_document_matches_only_the_root() -> None:
    assert apply_jsonpath({"all": "$", "field": "$.x"}, "17", {}, None) == {"all": "17", "field": ""}


def test_the_document_rules() -> None:
    assert delivery_document("", {"q": "1"}, "application/json") == {"q": "1"}
    assert delivery_document('{"a": 1}', {"q": "1"}, "text/plain") == {"a": 1}
    assert delivery_document("a=1&b=2", {}, "Application/X-WWW-Form-Urlencoded") == {"a": "1", "b": "2"}


def test_encode_value() -> None:
    assert [encode_value(v) for v in ["s", 1, 1.5, True, None, [1, "a"], {"k": "ü"}]] == [
        "s", "1", "1.5", "true", "null", '[1,"a"]', '{"k":"ü"}',
    ]  # fmt: skip
