"""Turn a webhook delivery (body, headers, query parameters) into a flat map of string variables.

Two transform types (payloadTransformConfig.transformType):
- JSONPATH (default): jsonPathMappings maps variable names to JSONPath expressions (jsonpath-ng's extended
  syntax, so filters such as `$.items[?(@.price > 10)].id` work).
- SVC_SCRIPT: transformScript, run in the script sandbox, returns an object of variables.

Variables are strings because they are substituted into text (see substitute.py). The rules for the
document a JSONPath is evaluated on, for matches and for value encoding are documented in
docs/scripting.md and on `apply_jsonpath`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

from jsonpath_ng.ext.parser import parse as parse_jsonpath
from jsonpath_ng.jsonpath import JSONPath

from core.webhooks.jsonpath_budget import mapping_problem, mappings_problem, variables_budget

JSONPATH = "JSONPATH"
SVC_SCRIPT = "SVC_SCRIPT"
VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"


class TransformError(Exception):
    """A delivery could not be transformed. The message is meant for the webhook's owner and the
    execution history; it never quotes header values."""


class TransformConfigError(TransformError):
    """A payloadTransformConfig that can never work (bad variable name or JSONPath expression)."""

    def __init__(self, message: str, *, variable: str | None = None, expression: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable
        self.expression = expression


ScriptRunner = Callable[[str, str, Mapping[str, str], Mapping[str, str]], dict[str, Any]]
"""Runs a transform script (script, payload, headers, query parameters) and returns its object of variables;
raises TransformError when the script fails. The sandbox that implements it lives in sinks.scripting."""

Step = str | int
"""One step of a plain path: a field name (objects only) or an array index (negative counts from the end)."""


@dataclass(frozen=True, slots=True)
class CompiledMappings:
    """Validated jsonPathMappings: (variable name, expression text, compiled expression, plain steps) in
    config order. Plain steps are set when the expression is only fields and indices (`$.a.b[0]['c']`)."""

    entries: tuple[tuple[str, str, JSONPath, tuple[Step, ...] | None], ...]

    def __len__(self) -> int:
        return len(self.entries)


@lru_cache(maxsize=1024)
def _compile_expression(expression: str) -> JSONPath:
    # Deliveries of one webhook reuse the same few expressions, and parsing one costs far more than a lookup.
    return parse_jsonpath(expression)


_PLAIN_STEP = re.compile(r"""\.([A-Za-z_][A-Za-z0-9_]*)|\[(-?\d+)\]|\['([^'\\]*)'\]|\["([^"\\]*)"\]""")


@lru_cache(maxsize=1024)
def plain_steps(expression: str) -> tuple[Step, ...] | None:
    """The steps of a path made only of fields and indices from the root, or None for anything else
    (wildcards, slices, filters, functions), which jsonpath-ng evaluates. Most mappings are plain, and
    walking them directly costs a fiftieth of jsonpath-ng's generic matching."""
    if not expression.startswith("$"):
        return None
    steps: list[Step] = []
    position = 1
    while position < len(expression):
        match = _PLAIN_STEP.match(expression, position)
        if match is None:
            return None
        name, index, single, double = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(next(part for part in (name, single, double) if part is not None))
        position = match.end()
    return tuple(steps)


def walk(document: Any, steps: tuple[Step, ...]) -> list[Any]:
    """What jsonpath-ng finds for a plain path: the one value at its end, or nothing."""
    value = document
    for step in steps:
        if isinstance(step, str):
            if not isinstance(value, dict) or step not in value:
                return []
            value = value[step]
        else:
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return []
            value = value[step]
    return [value]


def compile_jsonpath_mappings(mappings: Mapping[str, str]) -> CompiledMappings:
    """Validate and compile jsonPathMappings; raise TransformConfigError naming the first bad entry."""
    entries: list[tuple[str, str, JSONPath, tuple[Step, ...] | None]] = []
    too_many = mappings_problem(mappings)
    if too_many is not None:
        raise TransformConfigError(too_many)
    for name, expression in mappings.items():
        if not isinstance(name, str) or not VARIABLE_NAME.match(name):
            raise TransformConfigError(
                f"Invalid variable name {name!r}: names start with a letter or '_' and contain only letters, "
                "digits, '_', '.' and '-'.",
                variable=str(name),
            )
        if not isinstance(expression, str) or not expression.strip():
            raise TransformConfigError(
                f"Variable '{name}' needs a JSONPath expression (a non-empty string).", variable=name
            )
        problem = mapping_problem(name, expression.strip())
        if problem is not None:
            raise TransformConfigError(problem, variable=name, expression=expression)
        try:
            compiled = _compile_expression(expression.strip())
        except Exception as exc:  # jsonpath-ng raises several unrelated types for bad input
            raise TransformConfigError(
                f"Invalid JSONPath for variable '{name}': {expression!r} ({exc})",
                variable=name,
                expression=expression,
            ) from None
        entries.append((name, expression, compiled, plain_steps(expression.strip())))
    return CompiledMappings(tuple(entries))


def encode_value(value: Any) -> str:
    """Strings as they are; everything else as compact JSON (`true`, `42`, `null`, `{"a":1}`)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def delivery_document(body: str, query_params: Mapping[str, str], content_type: str | None) -> Any:
    """The document JSONPath runs on: the JSON body, a form body as an object, or the query parameters
    when the body is empty (GET deliveries carry their data there)."""
    if not body.strip():
        return dict(query_params)
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type == FORM_CONTENT_TYPE:
        fields: dict[str, list[str]] = {}
        for key, value in parse_qsl(body, keep_blank_values=True):
            fields.setdefault(key, []).append(value)
        return {key: values[0] if len(values) == 1 else values for key, values in fields.items()}
    try:
        return json.loads(body, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        # exc.msg and the position only: str(exc) is the same, but the document may one day be quoted in it.
        raise TransformError(
            f"Request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # NaN, Infinity
        raise TransformError(f"Request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise TransformError("Request body is nested too deeply to be read.") from None


def apply_jsonpath(
    mappings: Mapping[str, str] | CompiledMappings,
    body: str,
    query_params: Mapping[str, str],
    content_type: str | None = None,
) -> dict[str, str]:
    """Evaluate each mapping on the delivery document.

    No match gives "" (the variable always exists, so `@@{name}` never survives into a handler's input);
    one match gives that value; several matches give a JSON array of the values.
    """
    compiled = mappings if isinstance(mappings, CompiledMappings) else compile_jsonpath_mappings(mappings)
    if not compiled.entries:
        return {}
    document = delivery_document(body, query_params, content_type)
    budget = variables_budget(len(body))
    variables: dict[str, str] = {}
    for name, _expression, path, steps in compiled.entries:
        try:
            values = (
                walk(document, steps) if steps is not None else [match.value for match in path.find(document)]
            )
        except RecursionError:
            raise TransformError(f"JSONPath for variable '{name}' runs too deep into the body.") from None
        if not values:
            variables[name] = ""
        elif len(values) == 1:
            variables[name] = encode_value(values[0])
        else:
            variables[name] = encode_value(values)
        budget -= len(variables[name])
        if budget < 0:
            raise TransformError(
                f"JSONPath results exceed {variables_budget(len(body))} bytes at variable '{name}' "
                "(twice the body, at least 1 MiB)."
            )
    return variables


def needs_sandbox(mappings: Mapping[str, str]) -> bool:
    """Whether some mapping is more than a plain path (wildcards, slices, filters, recursive descent): its
    cost depends on the document, so it is evaluated in a sandbox worker under a CPU budget."""
    return any(not isinstance(e, str) or plain_steps(e.strip()) is None for e in mappings.values())


def jsonpath_task(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The sandbox task "jsonpath": {mappings, body, queryParams, contentType} -> {variables} or {error}."""
    try:
        variables = apply_jsonpath(
            payload["mappings"], payload["body"], payload["queryParams"], payload.get("contentType")
        )
    except TransformError as exc:
        return {"error": str(exc)}
    return {"variables": variables}


def _config_field(config: Any, camel: str, snake: str) -> Any:
    if isinstance(config, Mapping):
        return config.get(camel, config.get(snake))
    return getattr(config, camel, getattr(config, snake, None))


def apply_transform(
    config: Any,
    body: str,
    headers: Mapping[str, str],
    query_params: Mapping[str, str],
    *,
    run_script: ScriptRunner | None = None,
) -> dict[str, str]:
    """Apply a payloadTransformConfig (a mapping with camelCase keys, or an object with camelCase or
    snake_case attributes) to one delivery. No config, or one with nothing to do, gives {}.
    `run_script` runs an SVC_SCRIPT transform; without one, such a config is a TransformError."""
    if config is None:
        return {}
    transform_type = str(_config_field(config, "transformType", "transform_type") or JSONPATH).strip().upper()
    if transform_type == JSONPATH:
        mappings = _config_field(config, "jsonPathMappings", "json_path_mappings") or {}
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
        return apply_jsonpath(mappings, body, query_params, content_type)
    if transform_type != SVC_SCRIPT:
        raise TransformConfigError(
            f"Unknown transformType {transform_type!r}: use {JSONPATH} or {SVC_SCRIPT}."
        )
    script = _config_field(config, "transformScript", "transform_script")
    if not script or not str(script).strip():
        return {}
    if run_script is None:
        raise TransformError("Transform scripts cannot run here.")
    result = run_script(str(script), body, headers, query_params)
    variables: dict[str, str] = {}
    for name, value in result.items():
        if not VARIABLE_NAME.match(name):
            raise TransformError(
                "Transform script returned a variable name that is not allowed: names start with a letter or "
                "'_' and contain only letters, digits, '_', '.' and '-'."
            )
        variables[name] = encode_value(value)
    return variables
