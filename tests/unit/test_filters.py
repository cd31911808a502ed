"""Content filters (issue 24): Hookdeck's filter syntax, save-time checks and budgets, a bounded match."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from core.filters import collect, fold, matches
from schemas.base import RequestModel
from schemas.filters import MAX_FILTER_BYTES, MAX_FILTER_DEPTH, FilterConfig

pytestmark = pytest.mark.unit


def _passes(config: dict[str, Any], body: Any = None, headers: Any = None, query: Any = None) -> bool:
    return matches(FilterConfig.model_validate(config), body=body, headers=headers or {}, query=query or {})


def _messages(raw: Any) -> list[str]:
    """The problems as `path: message`, the form the HTTP answer gives them."""
    with pytest.raises(ValidationError) as caught:
        FilterConfig.model_validate(raw)
    return [
        "".join(["filterConfig", *(f".{part}" for part in e["loc"])]) + f": {e['msg']}"
        for e in caught.value.errors()
    ]


# Ported from hookdeck/simple-json-match src/tests/index.test.ts (commit 988ca8d, the library behind
# Hookdeck's filters): every case whose filter is an object and uses no $ref, with Hookdeck's expected answer.
HOOKDECK_CASES: list[tuple[Any, dict[str, Any], bool]] = [
    ({"type": "created"}, {"type": "created"}, True),
    ({}, {"type": "created"}, False),
    ({"type": "updated"}, {"type": "created"}, False),
    ({"type": 1}, {"type": "created"}, False),
    ({"type": 1}, {"type": 1}, True),
    ({"count": 1, "type": "created"}, {"count": 1}, True),
    ({"count": 1, "type": "created"}, {"count": 1, "type": "created"}, True),
    ({"count": 1}, {"count": 1, "type": "created"}, False),
    ({"count": 0}, {"count": {"$lt": 1}}, True),
    ({"count": 2}, {"count": {"$lt": 1}}, False),
    ({"count": 2}, {"count": {"$eq": 2}}, True),
    ({"count": 2}, {"count": {"$neq": 2}}, False),
    ({"count": 2}, {"count": {"$gt": 1, "$lt": 3}}, True),
    ({"count": 4}, {"count": {"$gt": 1, "$lt": 3}}, False),
    ({"title": "a"}, {"title": {"$gt": "b"}}, False),
    ({"title": "c"}, {"title": {"$gt": "b"}}, True),
    ({"type": "created"}, {"type": {"$neq": "created"}}, False),
    ({"type": "created"}, {"type": {"$eq": "created"}}, True),
    ({"type": {"something": "created"}}, {"type": {"something": "created"}}, True),
    ({"type": {"something": "created"}}, {"type": {"something": "updated"}}, False),
    ({"type": {"something": "created"}}, {"type": 1}, False),
    ({"tags": ["test", "other"]}, {"tags": "test"}, True),
    ({"tags": ["test", "other"]}, {"tags": "nope"}, False),
    ({"items": [{"sku": "test"}]}, {"items": {"sku": "test"}}, True),
    ({"items": [{"sku": "test"}]}, {"items": {"sku": "1"}}, False),
    ({"items": [{"inventory": 9}, {"inventory": 11}]}, {"items": {"inventory": {"$lte": 10}}}, True),
    ({"items": [{"inventory": 12}, {"inventory": 11}]}, {"items": {"inventory": {"$lte": 10}}}, False),
    ({"tags": ["test", "other", "more"]}, {"tags": ["test", "other"]}, True),
    ({"tags": ["test", "other", "more"]}, {"tags": ["test", "whatever"]}, False),
    ({"tags": ["test", "other"]}, {"tags": {"$eq": ["test", "other"]}}, True),
    ({"tags": ["test", "other", "more"]}, {"tags": {"$eq": ["test", "other"]}}, False),
    ({"exist": True}, {"exist": True}, True),
    ({"exist": True}, {"exist": False}, False),
    ({"exist": None}, {"exist": None}, True),
    ({"exist": None}, {"exist": False}, False),
    ({"exist": None}, {"exist": {"$eq": None}}, True),
    ({"exist": None}, {"exist": {"$neq": None}}, False),
    ({"test": "some-text"}, {"test": {"$startsWith": "some"}}, True),
    ({"test": "some-text"}, {"test": {"$endsWith": "some"}}, False),
    ({"test": "some-text"}, {"test": {"$endsWith": "text"}}, True),
    ({"test": "some-text"}, {"test": {"something": "text"}}, False),
    ({"test": {"more": True}}, {"test": {"$startsWith": "text"}}, False),
    ({"test": "some-text"}, {"test": {"$startsWith": ["some", "else"]}}, True),
    ({"test": "some-text"}, {"test": {"$startsWith": ["something", "else"]}}, False),
    ({"test": "some-text"}, {"test": {"$endsWith": ["some", "else"]}}, False),
    ({"test": "some-text"}, {"test": {"$endsWith": ["text", "else"]}}, True),
    ({"test": "some-text", "id": 123}, {"test": {"$in": "text"}, "id": {"$in": [123, 456]}}, True),
    (
        {"test": "some-text", "id": 123},
        {"test": {"$in": ["some-text", "other-text"]}, "id": {"$in": [123, 456]}},
        True,
    ),
    (
        {"test": "some-text", "id": 123},
        {"test": {"$in": ["some", "text"]}, "id": {"$nin": [123, 456]}},
        False,
    ),
    ({"test": "some-text"}, {"test": {"$in": "text"}}, True),
    ({"test": "some-text"}, {"test": {"$nin": "some"}}, False),
    ({"tags": ["test", "something"]}, {"tags": {"$nin": "test"}}, False),
    ({"test": True}, {"$or": [{"test": True}]}, True),
    ({"test": True}, {"$or": [{"test": False}]}, False),
    (
        {"test": {"something": "else"}},
        {"test": {"$or": [{"something": True}, {"something": {"$in": "else"}}]}},
        True,
    ),
    (
        {"test": {"something": "else"}},
        {"test": {"$or": [{"something": True}, {"something": {"$in": "no"}}]}},
        False,
    ),
    ({"test": True}, {"$and": [{"test": True}]}, True),
    (
        {"test": {"something": "else"}},
        {"test": {"$and": [{"something": {"$neq": None}}, {"something": {"$in": "else"}}]}},
        True,
    ),
    (
        {"test": {"something": None}},
        {"test": {"$and": [{"something": {"$neq": None}}, {"something": {"$in": "else"}}]}},
        False,
    ),
    ({"test": "else"}, {"test": {"$exist": True}}, True),
    ({"test": "else"}, {"test": {"$exist": False}}, False),
    ({"test1": "else"}, {"test": {"$exist": True}}, False),
    ({"test1": "else"}, {"test": {"$exist": False}}, True),
    ({"test": {"test1": "else"}}, {"test": {"test1": {"$exist": True, "$or": ["else", "not"]}}}, True),
    ({"test": {"test1": "else1"}}, {"test": {"test1": {"$exist": True, "$or": ["else", "not"]}}}, False),
    ({"test": {"test1": "else"}}, {"test": {"test1": {"$exist": True, "$in": "el"}}}, True),
    ({"test": {"test1": "else"}}, {"test": {"test1": {"$exist": True, "$in": "no"}}}, False),
    (
        {"test": {"test1": "else", "test2": "not"}},
        {
            "test": {
                "test1": {"$exist": True, "$or": ["else", "not"]},
                "$and": [{"test1": "else"}, {"test2": "not"}],
            }
        },
        True,
    ),
    (
        {"test": {"test1": "else", "test2": "not"}},
        {
            "test": {
                "test1": {"$exist": True, "$or": ["else1", "not1"]},
                "$and": [{"test1": "else1"}, {"test2": "not1"}],
            }
        },
        False,
    ),
    ({"test": {"test1": {"test2": "else"}}}, {"test": {"test1": {"test2": {"$exist": True}}}}, True),
    ({"test": {"test1": {"test2": "else"}}}, {"test": {"test1": {"test2": {"$exist": False}}}}, False),
    ({"test": {"test1": {"test3": "else"}}}, {"test": {"test1": {"test2": {"$exist": False}}}}, True),
    ({"test": {"test1": {"test3": "else"}}}, {"test": {"test1": {"test2": {"$exist": True}}}}, False),
    (
        {"test": {"test1": "else"}},
        {"$or": [{"test": {"test1": {"$exist": False}}}, {"test": {"test1": "else"}}]},
        True,
    ),
    (
        {"test": {"test2": "else"}},
        {"$or": [{"test": {"test1": {"$exist": True}}}, {"test": {"test2": "else1"}}]},
        False,
    ),
    (
        {"test": {"test1": "else", "test2": "not"}},
        {"$and": [{"test": {"test1": {"$exist": True}}}, {"test": {"test2": "not1"}}]},
        False,
    ),
    ({"test": {"test2": "not"}}, {"$and": [{"test": {"test1": {"$exist": True, "$eq": "not"}}}]}, False),
    (
        {"test": {"test1": "else"}},
        {"$and": [{"test": {"test1": {"$exist": True}}}, {"test": {"test2": {"$exist": False}}}]},
        True,
    ),
    (
        {"test": {"test3": "else"}},
        {"$or": [{"test": {"test1": {"$exist": True}}}, {"test": {"test2": {"$exist": False}}}]},
        True,
    ),
    # Hookdeck's not_tests: $not beside $and / $or at the root.
    (
        {"test": {"test1": "else", "test2": "not"}},
        {
            "$not": {"test": {"test1": "else2"}},
            "$and": [{"test": {"test1": "else"}}, {"test": {"test2": "not"}}],
        },
        True,
    ),
    (
        {"test": {"test1": "else", "test2": "not"}},
        {
            "$not": {"test": {"test1": "else"}},
            "$and": [{"test": {"test1": "else"}}, {"test": {"test2": "not"}}],
        },
        False,
    ),
    (
        {"test": {"test1": "else", "test2": "not"}},
        {
            "$not": {"test": {"test1": {"$exist": False}}},
            "$and": [{"test": {"test3": {"$exist": False}}}, {"test": {"test2": "not"}}],
        },
        True,
    ),
    (
        {"test": {"test1": "else", "test2": "not"}},
        {
            "$not": {"test": {"test1": "else2"}},
            "$or": [{"test": {"test3": {"$exist": True}}}, {"test": {"test2": "not2"}}],
        },
        False,
    ),
]


@pytest.mark.parametrize(("body", "body_filter", "expected"), HOOKDECK_CASES)
def test_hookdeck_cases(body: Any, body_filter: dict[str, Any], expected: bool) -> None:
    assert _passes({"body": body_filter}, body=body) is expected
    # As Hookdeck's own suite does: the same filter under $not gives the opposite answer.
    assert _passes({"body": {"$not": body_filter}}, body=body) is (not expected)


# Everything Hookdeck's suite leaves open: parts, text values, arrays, missing parents, type mismatches.
CASES: list[Any] = [
    # Headers: names case-insensitive either way round, values case-sensitive, repeated headers are arrays.
    pytest.param(
        {"headers": {"X-GitHub-Event": "push"}}, {"headers": {"x-github-event": "push"}}, True, id="hdr-case"
    ),
    pytest.param(
        {"headers": {"x-github-event": "push"}}, {"headers": {"X-GitHub-Event": "push"}}, True, id="hdr-case2"
    ),
    pytest.param(
        {"headers": {"x-event": "Push"}}, {"headers": {"x-event": "push"}}, False, id="hdr-value-case"
    ),
    pytest.param({"headers": {"x-event": "push"}}, {"headers": {}}, False, id="hdr-missing"),
    pytest.param({"headers": {"x-event": {"$exist": False}}}, {"headers": {}}, True, id="hdr-absent"),
    pytest.param(
        {"headers": {"$or": [{"X-A": "1"}, {"X-B": "2"}]}}, {"headers": {"x-b": "2"}}, True, id="hdr-or-folds"
    ),
    pytest.param(
        {"headers": {"x-tag": "b"}}, {"headers": {"X-Tag": "a", "x-tag": "b"}}, True, id="hdr-repeated"
    ),
    pytest.param({"headers": {"x-tag": ["a", "b"]}}, {"headers": {"x-tag": ["b", "a"]}}, True, id="hdr-list"),
    pytest.param(
        {"headers": {"x-count": {"$gte": 10}}}, {"headers": {"x-count": "12"}}, True, id="hdr-numeric"
    ),
    pytest.param(
        {"headers": {"x-flag": True}}, {"headers": {"x-flag": "true"}}, False, id="hdr-no-bool-coercion"
    ),
    pytest.param(
        {"headers": {"content-type": {"$startsWith": "application/json"}}},
        {"headers": {"Content-Type": "application/json; charset=utf-8"}},
        True,
        id="hdr-prefix",
    ),
    # Query: text values, numbers compare numerically, names case-sensitive, repeated names are arrays.
    pytest.param({"query": {"page": 2}}, {"query": {"page": "2"}}, True, id="q-number"),
    pytest.param({"query": {"page": {"$gt": 10}}}, {"query": {"page": "9"}}, False, id="q-numeric-order"),
    pytest.param({"query": {"page": {"$gt": "10"}}}, {"query": {"page": "9"}}, True, id="q-text-order"),
    pytest.param({"query": {"Page": "2"}}, {"query": {"page": "2"}}, False, id="q-name-case"),
    pytest.param({"query": {"id": "2"}}, {"query": {"id": ["1", "2"]}}, True, id="q-repeated"),
    pytest.param({"query": {"id": {"$eq": "2"}}}, {"query": {"id": ["2"]}}, True, id="q-single-list"),
    pytest.param({"query": {"page": {"$in": ["1", "2"]}}}, {"query": {"page": "2"}}, True, id="q-in-list"),
    # Numbers and their spellings.
    pytest.param(
        {"body": {"total": {"$gte": 100}}}, {"body": {"total": "199.00"}}, True, id="numeric-string"
    ),
    pytest.param({"body": {"total": 100}}, {"body": {"total": "1e2"}}, True, id="exponent-string"),
    pytest.param({"body": {"total": 100}}, {"body": {"total": "0100"}}, False, id="not-json-number"),
    pytest.param({"body": {"total": 100}}, {"body": {"total": " 100"}}, False, id="padded-number"),
    pytest.param({"body": {"id": "123"}}, {"body": {"id": 123}}, True, id="string-matches-number"),
    pytest.param({"body": {"id": 1.0}}, {"body": {"id": 1}}, True, id="int-float"),
    pytest.param(
        {"body": {"big": 12345678901234567891}}, {"body": {"big": "12345678901234567890"}}, False, id="bigint"
    ),
    pytest.param({"body": {"flag": True}}, {"body": {"flag": 1}}, False, id="bool-not-number"),
    pytest.param({"body": {"n": None}}, {"body": {}}, False, id="null-not-missing"),
    pytest.param({"body": {"n": 0}}, {"body": {"n": False}}, False, id="zero-not-false"),
    pytest.param(
        {"body": {"at": {"$gte": "2026-01-01"}}}, {"body": {"at": "2026-03-01T00:00:00Z"}}, True, id="iso"
    ),
    # Type mismatches never raise: the condition just does not match.
    pytest.param({"body": {"a": {"$gt": 5}}}, {"body": {"a": {"b": 1}}}, False, id="gt-object"),
    pytest.param({"body": {"a": {"$gt": 5}}}, {"body": {"a": "abc"}}, False, id="gt-text"),
    pytest.param({"body": {"a": {"$gt": 5}}}, {"body": {"a": True}}, False, id="gt-bool"),
    pytest.param({"body": {"a": {"$startsWith": "x"}}}, {"body": {"a": 5}}, False, id="prefix-number"),
    pytest.param({"body": {"a": {"$in": "x"}}}, {"body": {"a": 5}}, False, id="in-number"),
    pytest.param({"body": {"a": {"$nin": "x"}}}, {"body": {"a": 5}}, False, id="nin-mismatch"),
    pytest.param({"body": {"a": {"$nin": "x"}}}, {"body": {}}, False, id="nin-missing"),
    pytest.param({"body": {"a": {"$neq": "x"}}}, {"body": {"a": 5}}, True, id="neq-other-type"),
    pytest.param({"body": {"a": {"$neq": "x"}}}, {"body": {}}, False, id="neq-missing"),
    pytest.param({"body": {"a": {"b": 1}}}, {"body": {"a": [1, 2]}}, False, id="field-of-scalar-array"),
    pytest.param({"body": {"a": ["x"]}}, {"body": {"a": "x"}}, False, id="array-filter-scalar"),
    # Arrays: one level, elements tested one at a time, no flattening.
    pytest.param({"body": {"scores": {"$gt": 5}}}, {"body": {"scores": [1, 10]}}, True, id="gt-any-element"),
    pytest.param({"body": {"scores": {"$gt": 50}}}, {"body": {"scores": [1, 10]}}, False, id="gt-no-element"),
    pytest.param(
        {"body": {"refs": {"$startsWith": "v"}}}, {"body": {"refs": ["main", "v1"]}}, True, id="prefix-any"
    ),
    pytest.param(
        {"body": {"tags": {"$in": ["a", "b"]}}}, {"body": {"tags": ["c", "b"]}}, True, id="in-array-both"
    ),
    pytest.param(
        {"body": {"tags": {"$nin": ["a", "b"]}}}, {"body": {"tags": ["c", "d"]}}, True, id="nin-array-both"
    ),
    pytest.param({"body": {"ids": {"$in": 7}}}, {"body": {"ids": [5, 7]}}, True, id="in-number-array"),
    pytest.param({"body": {"m": 1}}, {"body": {"m": [[1, 2]]}}, False, id="no-flatten"),
    pytest.param({"body": {"m": [[1]]}}, {"body": {"m": [[2, 1], [3]]}}, True, id="nested-array-filter"),
    pytest.param(
        {"body": {"items": {"sku": "a", "qty": 2}}},
        {"body": {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]}},
        False,
        id="same-element",
    ),
    pytest.param(
        {"body": {"items": {"$not": {"sku": "a"}}}}, {"body": {"items": [{"sku": "a"}, {}]}}, False, id="none"
    ),
    pytest.param({"body": {"tags": {"$eq": []}}}, {"body": {"tags": []}}, True, id="eq-empty"),
    pytest.param({"body": {"tags": {"$eq": ["a"]}}}, {"body": {"tags": ["a", "a"]}}, False, id="eq-whole"),
    pytest.param(
        {"body": {"o": {"$eq": {"b": 2, "a": 1}}}}, {"body": {"o": {"a": 1, "b": 2}}}, True, id="eq-key-order"
    ),
    pytest.param(
        {"body": {"o": {"$eq": {"a": 1}}}}, {"body": {"o": {"a": 1, "b": 2}}}, False, id="eq-extra-key"
    ),
    pytest.param({"body": {"type": "a"}}, {"body": [{"type": "b"}, {"type": "a"}]}, True, id="array-root"),
    # Missing parents, $not at any level, composition.
    pytest.param({"body": {"a": {"b": {"$exist": False}}}}, {"body": {}}, True, id="missing-parent"),
    pytest.param({"body": {"a": {"b": {"$exist": False}}}}, {"body": {"a": 5}}, True, id="scalar-parent"),
    pytest.param({"body": {"a": {"$not": {"$eq": 1}}}}, {"body": {"a": 2}}, True, id="not-on-value"),
    pytest.param({"body": {"a": {"$not": {"$eq": 1}}}}, {"body": {}}, True, id="not-on-missing"),
    pytest.param({"body": {"$not": {"status": "deleted"}}}, {"body": {"id": 1}}, True, id="blocklist"),
    pytest.param(
        {"body": {"$or": [{"a": 1}, {"$and": [{"b": 2}, {"$not": {"c": 3}}]}]}},
        {"body": {"b": 2, "c": 4}},
        True,
        id="composed",
    ),
    pytest.param(
        {"body": {"$or": [{"a": 1}, {"$and": [{"b": 2}, {"$not": {"c": 3}}]}]}},
        {"body": {"b": 2, "c": 3}},
        False,
        id="composed-no",
    ),
    pytest.param(
        {"body": {"amount": {"$and": [{"$gte": 100}, {"$lte": 500}]}}},
        {"body": {"amount": 300}},
        True,
        id="and",
    ),
    # Parts together, and a body that is not JSON.
    pytest.param(
        {"headers": {"x-a": "1"}, "body": {"b": 2}},
        {"headers": {"x-a": "1"}, "body": {"b": 3}},
        False,
        id="all",
    ),
    pytest.param({"body": {"$not": {"a": 1}}}, {"body": None}, False, id="not-json-body"),
    pytest.param(
        {"headers": {"x-a": "1"}}, {"headers": {"x-a": "1"}, "body": None}, True, id="not-json-no-body-part"
    ),
    pytest.param({}, {"body": None}, True, id="no-filter"),
]


@pytest.mark.parametrize(("config", "payload", "expected"), CASES)
def test_matches(config: dict[str, Any], payload: dict[str, Any], expected: bool) -> None:
    assert _passes(config, **payload) is expected


def test_every_operator_is_covered() -> None:
    written = repr([case.values[0] for case in CASES]) + repr(HOOKDECK_CASES)
    for operator in ("$eq", "$neq", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exist", "$startsWith"):
        assert f"'{operator}'" in written
    for operator in ("$endsWith", "$and", "$or", "$not"):
        assert f"'{operator}'" in written


def test_collected_values() -> None:
    assert collect([("a", "1"), ("b", "2"), ("a", "3")]) == {"a": ["1", "3"], "b": "2"}
    assert fold([("X-A", "1"), ("x-a", "2")]) == {"x-a": ["1", "2"]}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {"body": {"order": {"$gte": {"a": 1}}}},
            "filterConfig.body.order.$gte: expects a number or string, got object",
        ),
        ({"body": {"x": {"$foo": 1}}}, "filterConfig.body.x: unknown operator $foo"),
        (
            {"body": {"$or": [{"a": {"$exists": True}}]}},
            "filterConfig.body.$or.0.a: unknown operator $exists",
        ),
        (
            {"body": {"x": {"$or": []}}},
            "filterConfig.body.x.$or: expects a non-empty array of filters, got an empty array",
        ),
        (
            {"body": {"x": {"$and": {"a": 1}}}},
            "filterConfig.body.x.$and: expects a non-empty array of filters, got object",
        ),
        ({"body": {"x": {"$exist": "yes"}}}, "filterConfig.body.x.$exist: expects true or false, got string"),
        ({"body": {"x": {"$lt": True}}}, "filterConfig.body.x.$lt: expects a number or string, got boolean"),
        (
            {"body": {"x": {"$in": [1, {}]}}},
            "filterConfig.body.x.$in.1: expects a string, a number, a boolean or null, got object",
        ),
        (
            {"body": {"x": {"$nin": {}}}},
            "filterConfig.body.x.$nin: expects a string, a number or a non-empty array of values, got object",
        ),
        (
            {"body": {"x": {"$in": []}}},
            "filterConfig.body.x.$in: expects a non-empty array, got an empty array",
        ),
        (
            {"body": {"x": {"$startsWith": 5}}},
            "filterConfig.body.x.$startsWith: expects a string or a non-empty array of strings, got number",
        ),
        (
            {"body": {"x": {"$endsWith": ["a", 1]}}},
            "filterConfig.body.x.$endsWith.1: expects a string, got number",
        ),
        (
            {"body": {"x": {"$not": {"y": {"$gt": []}}}}},
            "filterConfig.body.x.$not.y.$gt: expects a number or string, got array",
        ),
        (
            {"body": {"x": {}}},
            'filterConfig.body.x: an empty object matches anything; remove it or use {"$exist": true}',
        ),
        (
            {"body": {"x": []}},
            'filterConfig.body.x: an empty array matches any array; use {"$eq": []} for an empty one',
        ),
        ({"body": {"x": float("nan")}}, "filterConfig.body.x: expects a finite number"),
        ({"headers": {"bad name": "1"}}, "filterConfig.headers.bad name: is not a valid header name"),
        (
            {"headers": {"X-A": {"b": 1}}},
            "filterConfig.headers.X-A.b: a header value is text, not an object with fields",
        ),
        (
            {"query": {"a": {"$or": [{"b": 1}]}}},
            "filterConfig.query.a.$or.0.b: a query parameter value is text, not an object with fields",
        ),
        ({"body": "type"}, "filterConfig.body: Input should be a valid dictionary"),
        ({"path": {"$in": "/x"}}, "filterConfig.path: Extra inputs are not permitted"),
    ],
)
def test_refused_with_path(raw: dict[str, Any], expected: str) -> None:
    assert _messages(raw) == [expected]


def test_every_problem_is_reported() -> None:
    assert _messages({"body": {"a": {"$gt": {}}, "b": {"$bad": 1}}, "query": {"c": []}}) == [
        "filterConfig.body.a.$gt: expects a number or string, got object",
        "filterConfig.body.b: unknown operator $bad",
        'filterConfig.query.c: an empty array matches any array; use {"$eq": []} for an empty one',
    ]


def test_path_inside_a_webhook_config() -> None:
    class Config(RequestModel):
        filter_config: FilterConfig | None = None

    with pytest.raises(ValidationError) as caught:
        Config.model_validate({"filterConfig": {"body": {"order": {"$gte": {}}}}})
    [error] = caught.value.errors()
    assert error["loc"] == ("filterConfig", "body", "order", "$gte")
    assert error["msg"] == "expects a number or string, got object"


def test_empty_parts_are_no_filter() -> None:
    config = FilterConfig.model_validate({"body": {}, "headers": {}, "query": None})
    assert (config.body, config.headers, config.query) == (None, None, None)


def _nested(levels: int, leaf: Any) -> dict[str, Any]:
    value: Any = leaf
    for _ in range(levels):
        value = {"a": value}
    return value  # type: ignore[no-any-return]


def test_budget_depth() -> None:
    assert FilterConfig.model_validate({"body": _nested(MAX_FILTER_DEPTH, 1)}).body is not None
    path = ".a" * MAX_FILTER_DEPTH
    assert _messages({"body": _nested(MAX_FILTER_DEPTH + 1, 1)}) == [
        f"filterConfig.body{path}: nested more than {MAX_FILTER_DEPTH} levels deep"
    ]


def test_budget_depth_refuses_hostile_nesting_without_recursing() -> None:
    # Far deeper than Python's recursion limit: the walk stops at the budget.
    assert len(_messages({"body": _nested(50_000, 1)})) == 1


def _json_bytes(raw: dict[str, Any]) -> int:
    return len(json.dumps(raw, separators=(",", ":"), ensure_ascii=False).encode())


def test_budget_size() -> None:
    fits = {"body": {f"k{i:04}": "é" * 50 for i in range(140)}}
    assert _json_bytes(fits) <= MAX_FILTER_BYTES
    assert FilterConfig.model_validate(fits).body is not None
    too_big = {"body": {f"k{i:04}": "é" * 50 for i in range(150)}}
    # Counted in UTF-8 bytes (é is two), over the compact JSON of the parts given.
    assert _json_bytes(too_big) == 16660
    assert _messages(too_big) == ["filterConfig: is 16660 bytes as JSON; at most 16384 are allowed"]
    split = {
        "body": dict(list(too_big["body"].items())[:75]),
        "query": dict(list(too_big["body"].items())[75:]),
    }
    assert _messages(split) == [
        f"filterConfig: is {_json_bytes(split)} bytes as JSON; at most 16384 are allowed"
    ]


def test_budget_size_stops_early_on_a_huge_filter() -> None:
    assert _messages({"body": {"a": {"$in": list(range(1_000_000))}}}) == [
        "filterConfig: is more than 16384 bytes as JSON; at most 16384 are allowed"
    ]


def test_budget_operators() -> None:
    assert FilterConfig.model_validate({"body": {f"k{i}": {"$gt": i} for i in range(200)}}).body is not None
    assert _messages({"body": {f"k{i}": {"$gt": i} for i in range(201)}}) == [
        "filterConfig: has 201 operators; at most 200 are allowed"
    ]


def test_budget_strings() -> None:
    assert FilterConfig.model_validate({"body": {"a": "x" * 1024}}).body is not None
    assert _messages({"body": {"a": {"$eq": ["x" * 1025]}}}) == [
        "filterConfig.body.a.$eq.0: is 1025 characters long; at most 1024 are allowed"
    ]
    key = "k" * 300
    assert _messages({"body": {key: 1}}) == [
        f"filterConfig.body.{key[:40]}…: key is 300 characters long; at most 256 are allowed"
    ]


def test_hostile_wide_payload_with_a_deep_filter_completes() -> None:
    # 10,000 items under a filter at the depth budget, none matching until the last one.
    deep_filter = {"items": _nested(MAX_FILTER_DEPTH - 3, {"$in": ["needle"]})}
    items = [_nested(MAX_FILTER_DEPTH - 3, ["hay"] * 5) for _ in range(10_000)]
    assert not _passes({"body": deep_filter}, body={"items": items})
    items[-1] = _nested(MAX_FILTER_DEPTH - 3, ["hay", "needle"])
    assert _passes({"body": deep_filter}, body={"items": items})
    # Every item checked against each of several conditions, all failing late.
    wide = {"items": {"$and": [{"a": {"b": {"$gte": limit}}} for limit in range(50)]}}
    assert not _passes({"body": wide}, body={"items": [{"a": {"b": -1}}] * 10_000})


def test_hostile_deep_payload_does_not_recurse() -> None:
    deep: Any = "leaf"
    for _ in range(100_000):
        deep = [deep]
    assert not _passes({"body": {"a": {"b": 1}}}, body={"a": deep})
    assert not _passes({"body": {"a": {"$eq": [[["x"]]]}}}, body={"a": deep})
    assert _passes({"body": {"a": {"$exist": True}}}, body={"a": deep})
    obj: Any = {}
    for _ in range(100_000):
        obj = {"a": obj}
    assert _passes({"body": {"a": {"a": {"$exist": True}}}}, body=obj)


def test_hostile_long_numeric_strings_are_not_numbers() -> None:
    assert not _passes({"body": {"n": {"$gt": 1}}}, body={"n": "9" * 100_000})
    assert _passes({"body": {"n": {"$in": "99"}}}, body={"n": "9" * 100_000})
