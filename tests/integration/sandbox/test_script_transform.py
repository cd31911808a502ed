"""apply_transform with the real script sandbox: SVC_SCRIPT transforms run in worker subprocesses."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from core.webhooks.transform import TransformConfigError, TransformError, apply_transform
from sinks.scripting.sandbox import script_transform

pytestmark = pytest.mark.integration
SCRIPTS = script_transform()
BODY = json.dumps(
    {"id": "ord_1", "total": 42, "paid": True, "items": [{"sku": "A"}, {"sku": "B"}, {"sku": "C"}]}
)


# ---- apply_transform -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [None, {}, {"transformType": "JSONPATH"}, {"jsonPathMappings": {}}, {"transformType": "SVC_SCRIPT"}],
)
def test_nothing_to_do_gives_no_variables(config: Any) -> None:
    assert apply_transform(config, BODY, {}, {}, run_script=SCRIPTS) == {}


def test_jsonpath_is_the_default() -> None:
    config = {"jsonPathMappings": {"id": "$.id"}}
    assert apply_transform(config, BODY, {}, {}, run_script=SCRIPTS) == {"id": "ord_1"}


def test_content_type_comes_from_the_headers() -> None:
    config = {"transformType": "JSONPATH", "jsonPathMappings": {"text": "$.text"}}
    assert apply_transform(
        config, "text=hi", {"content-type": "application/x-www-form-urlencoded"}, {}, run_script=SCRIPTS
    ) == {"text": "hi"}


def test_script_transform_coerces_values_to_strings() -> None:
    script = """
      const order = JSON.parse(payload);
      return {id: order.id, total: order.total, paid: order.paid, none: null, items: order.items.length,
              nested: {sku: order.items[0].sku}, src: svc.header(headers, 'user-agent'), q: queryParams.q,
              dropped: undefined};
    """
    config = {"transformType": "SVC_SCRIPT", "transformScript": script}
    assert apply_transform(config, BODY, {"User-Agent": "Stripe/1.0"}, {"q": "x"}, run_script=SCRIPTS) == {
        "id": "ord_1",
        "total": "42",
        "paid": "true",
        "none": "null",
        "items": "3",
        "nested": '{"sku":"A"}',
        "src": "Stripe/1.0",
        "q": "x",
    }


def test_transform_type_is_case_insensitive() -> None:
    config = {"transformType": "svc_script", "transformScript": "return {a: 1}"}
    assert apply_transform(config, "", {}, {}, run_script=SCRIPTS) == {"a": "1"}


def test_script_failures_become_transform_errors() -> None:
    config = {"transformType": "SVC_SCRIPT", "transformScript": "return JSON.parse(payload).x.y"}
    with pytest.raises(TransformError, match=r"^Transform script failed: Script failed: TypeError"):
        apply_transform(config, "{}", {}, {}, run_script=SCRIPTS)
    config = {"transformType": "SVC_SCRIPT", "transformScript": "return [1]"}
    with pytest.raises(TransformError, match="must return an object"):
        apply_transform(config, "{}", {}, {}, run_script=SCRIPTS)


def test_script_failures_do_not_quote_headers() -> None:
    config = {"transformType": "SVC_SCRIPT", "transformScript": "throw new Error(JSON.stringify(headers))"}
    with pytest.raises(TransformError) as caught:
        apply_transform(config, "", {"Authorization": "wh:k1:supersecretvalue"}, {}, run_script=SCRIPTS)
    assert "supersecretvalue" not in str(caught.value)


@pytest.mark.parametrize("name", ["has space", "1st", "", "ü"])
def test_script_variable_names_are_checked(name: str) -> None:
    config = {"transformType": "SVC_SCRIPT", "transformScript": f"return {{{json.dumps(name)}: 1}}"}
    with pytest.raises(TransformError, match="variable name that is not allowed"):
        apply_transform(config, "", {}, {}, run_script=SCRIPTS)


def test_unknown_transform_type_is_a_config_error() -> None:
    with pytest.raises(TransformConfigError, match="Unknown transformType"):
        apply_transform({"transformType": "XSLT"}, BODY, {}, {})


def test_bad_stored_mappings_fail_the_delivery() -> None:
    with pytest.raises(TransformError, match="Invalid JSONPath for variable 'x'"):
        apply_transform({"jsonPathMappings": {"x": "$.["}}, BODY, {}, {})


@dataclass
class SnakeCaseConfig:
    transform_type: str = "JSONPATH"
    json_path_mappings: dict[str, str] = field(default_factory=dict)
    transform_script: str | None = None


def test_configs_may_be_objects() -> None:
    assert apply_transform(SnakeCaseConfig(json_path_mappings={"id": "$.id"}), BODY, {}, {}) == {
        "id": "ord_1"
    }
    camel = SimpleNamespace(transformType="SVC_SCRIPT", transformScript="return {n: 2}")
    assert apply_transform(camel, "", {}, {}, run_script=SCRIPTS) == {"n": "2"}
