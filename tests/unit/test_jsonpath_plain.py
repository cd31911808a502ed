"""Plain JSONPaths (fields and indices) are walked directly; the walk must find what jsonpath-ng finds."""

import json
from typing import Any

import pytest
from jsonpath_ng.ext.parser import parse

from core.webhooks.transform import apply_jsonpath, plain_steps, walk

pytestmark = pytest.mark.unit

DOCUMENTS: list[Any] = [
    {"a": {"b": [{"c": 1}, {"c": None}, 3]}, "len": 7, "sorted": "s", "this": {"x": True}, "id": "i"},
    {"a": [1, 2, 3], "b": "text", "c": {"": 0, "with space": 5, "d-e": 6}},
    {"a": {"b": {"c": {"d": [[1, 2], [3]]}}}, "items": []},
    {"a": None, "b": False, "c": 0, "d": "", "e": {}, "f": []},
    [{"a": 1}, {"a": 2}],
    "a string",
    42,
    None,
    {"a": "abc", "b": {"0": "zero"}},
]

EXPRESSIONS = [
    "$",
    "$.a",
    "$.a.b",
    "$.a.b[0]",
    "$.a.b[0].c",
    "$.a.b[1].c",
    "$.a.b[2]",
    "$.a.b[3]",
    "$.a.b[-1]",
    "$.a.b[-3].c",
    "$.a.b[-4]",
    "$.a[0]",
    "$.a[5]",
    "$[0]",
    "$[1].a",
    "$[-1]",
    "$['a']",
    '$["a"]["b"]',
    "$.c['with space']",
    "$.c['d-e']",
    "$.c['']",
    "$.len",
    "$.sorted",
    "$.this.x",
    "$.id",
    "$.b[0]",
    "$.b.0",
    "$.a.b.c.d[0][1]",
    "$.a.b.c.d[1][0]",
    "$.items[0]",
    "$.e.x",
    "$.f[0]",
    "$.missing",
    "$.a.missing.deeper",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_walk_finds_what_jsonpath_ng_finds(expression: str) -> None:
    steps = plain_steps(expression)
    if expression == "$.b.0":
        assert steps is None  # a digit after a dot is not a plain field: jsonpath-ng decides
        return
    assert steps is not None, expression
    compiled = parse(expression)
    for document in DOCUMENTS:
        expected = [match.value for match in compiled.find(document)]
        assert walk(document, steps) == expected, (expression, document)


@pytest.mark.parametrize(
    "expression",
    ["$.a[*]", "$..a", "$.a[0:2]", "$.items[?(@.price > 10)].id", "$.a.`len`", "a.b", "$.*", "$.a[0,1]"],
)
def test_anything_else_is_left_to_jsonpath_ng(expression: str) -> None:
    assert plain_steps(expression) is None


def test_mappings_mixing_plain_and_other_paths_give_the_same_variables() -> None:
    body = json.dumps({"order": {"id": 7, "lines": [{"sku": "A", "n": 2}, {"sku": "B", "n": 1}]}, "ok": True})
    mappings = {
        "id": "$.order.id",
        "first": "$.order.lines[0].sku",
        "all": "$.order.lines[*].sku",
        "ok": "$['ok']",
        "none": "$.order.missing",
        "lines": "$.order.lines",
    }
    variables = apply_jsonpath(mappings, body, {})
    assert variables == {
        "id": "7",
        "first": "A",
        "all": '["A","B"]',
        "ok": "true",
        "none": "",
        "lines": '[{"sku":"A","n":2},{"sku":"B","n":1}]',
    }
    for name, expression in mappings.items():
        found = [m.value for m in parse(expression).find(json.loads(body))]
        assert bool(found) == (variables[name] != "")
