"""Content filters of a webhook (``webhookConfig.filterConfig``): the wire model and its save-time checks.

The syntax is Hookdeck's filter syntax (see core/filters.py for what each form matches). Saving refuses
what cannot match as written and what could cost too much: an unknown ``$operator``, an operand of the wrong
type, empty arrays and objects in filter positions, and filters past the budgets below. Each refusal names
the exact place, ``filterConfig.body.order.$gte: expects a number or string, got object``.

The walk lives here rather than in core/ because the model runs it and schemas/ imports nothing else.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Literal

from pydantic import ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from schemas.base import RequestModel

# Budgets: compact JSON of body, headers and query together; containers on the deepest path (a Stripe path
# such as data.object.lines.data.price.recurring.interval is 7, leaving room for $not/$or/$in around it);
# operators over all parts; characters of one string value and of one key.
MAX_FILTER_BYTES = 16 * 1024
MAX_FILTER_DEPTH = 12
MAX_FILTER_OPERATORS = 200
MAX_FILTER_STRING_CHARS = 1024
MAX_FILTER_KEY_CHARS = 256
MAX_REPORTED_PROBLEMS = 20

LOGICAL_OPERATORS = frozenset({"$and", "$or", "$not"})
ORDER_OPERATORS = frozenset({"$gt", "$gte", "$lt", "$lte"})
AFFIX_OPERATORS = frozenset({"$startsWith", "$endsWith"})
OPERATORS = LOGICAL_OPERATORS | ORDER_OPERATORS | AFFIX_OPERATORS | {"$eq", "$neq", "$in", "$nin", "$exist"}

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# Filter keys below a header or query name: none (their values are text). Elsewhere in body: any.
_Fields = Literal["any", "names", "none"]
Loc = tuple[str | int, ...]
_ARTICLE = {"string": "a string", "number": "a number", "boolean": "a boolean", "null": "null"}


def json_type(value: Any) -> str:
    """The JSON name of a value's type, as the messages say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


class _TooLarge(Exception):
    pass


class _Walk:
    """One pass over a part: depth, size, strings, operators and operand types, each with its path."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.problems: list[tuple[Loc, str]] = []
        self.operators = 0
        self.nodes = 0

    def problem(self, loc: Loc, message: str) -> None:
        self.problems.append((loc, message))

    def enter(self, value: Any, loc: Loc, depth: int) -> bool:
        """Count the node and check what every node must satisfy; False stops the descent."""
        self.nodes += 1
        # Each JSON value takes at least two bytes with its separator: past this the part cannot fit.
        if self.nodes > MAX_FILTER_BYTES // 2:
            raise _TooLarge
        if isinstance(value, dict | list):
            if depth > MAX_FILTER_DEPTH:
                self.problem(loc, f"nested more than {MAX_FILTER_DEPTH} levels deep")
                return False
            return True
        if isinstance(value, str) and len(value) > MAX_FILTER_STRING_CHARS:
            self.problem(
                loc, f"is {len(value)} characters long; at most {MAX_FILTER_STRING_CHARS} are allowed"
            )
        elif isinstance(value, float) and not math.isfinite(value):
            self.problem(loc, "expects a finite number")
        elif value is not None and not isinstance(value, bool | int | float | str):
            self.problem(loc, f"expects a JSON value, got {type(value).__name__}")
        return True

    def key(self, key: Any, loc: Loc) -> Loc | None:
        if not isinstance(key, str):
            self.problem(loc, "object keys must be strings")
            return None
        if len(key) > MAX_FILTER_KEY_CHARS:
            self.problem(
                (*loc, key[:40] + "…"),
                f"key is {len(key)} characters long; at most {MAX_FILTER_KEY_CHARS} are allowed",
            )
            return None
        return (*loc, key)

    def data(self, value: Any, loc: Loc, depth: int) -> None:
        """An operand compared as data ($eq, $neq): budgets only, no operator meaning."""
        if not self.enter(value, loc, depth):
            return
        if isinstance(value, dict):
            for key, item in value.items():
                inner = self.key(key, loc)
                if inner is not None:
                    self.data(item, inner, depth + 1)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.data(item, (*loc, index), depth + 1)

    def filter(self, value: Any, loc: Loc, depth: int, fields: _Fields) -> None:
        if not self.enter(value, loc, depth):
            return
        if isinstance(value, list):
            if not value:
                self.problem(loc, 'an empty array matches any array; use {"$eq": []} for an empty one')
            for index, item in enumerate(value):
                self.filter(item, (*loc, index), depth + 1, "none" if fields == "names" else fields)
            return
        if not isinstance(value, dict):
            return
        if not value:
            self.problem(loc, 'an empty object matches anything; remove it or use {"$exist": true}')
        for key, item in value.items():
            inner = self.key(key, loc)
            if inner is None:
                continue
            if key.startswith("$"):
                self.operator(key, item, loc, inner, depth, fields)
            elif fields == "none":
                self.problem(inner, f"a {self._value_of()} value is text, not an object with fields")
            else:
                if fields == "names" and self.part == "headers" and not _HEADER_NAME.match(key):
                    self.problem(inner, "is not a valid header name")
                self.filter(item, inner, depth + 1, "none" if fields == "names" else fields)

    def _value_of(self) -> str:
        return "header" if self.part == "headers" else "query parameter"

    def operator(self, name: str, operand: Any, at: Loc, loc: Loc, depth: int, fields: _Fields) -> None:
        self.operators += 1
        if name not in OPERATORS:
            self.problem(at, f"unknown operator {name}")
            self.data(operand, loc, depth + 1)
        elif name in ("$and", "$or"):
            if not isinstance(operand, list) or not operand:
                shown = "an empty array" if operand == [] else json_type(operand)
                self.problem(loc, f"expects a non-empty array of filters, got {shown}")
                self.data(operand, loc, depth + 1)
            elif self.enter(operand, loc, depth + 1):
                for index, item in enumerate(operand):
                    self.filter(item, (*loc, index), depth + 2, fields)
        elif name == "$not":
            self.filter(operand, loc, depth + 1, fields)
        elif name in ("$eq", "$neq"):
            self.data(operand, loc, depth + 1)
        else:
            self.typed_operand(name, operand, loc, depth)

    def typed_operand(self, name: str, operand: Any, loc: Loc, depth: int) -> None:
        self.data(operand, loc, depth + 1)
        kind = json_type(operand)
        if name == "$exist":
            if kind != "boolean":
                self.problem(loc, f"expects true or false, got {kind}")
        elif name in ORDER_OPERATORS:
            if kind not in ("number", "string"):
                self.problem(loc, f"expects a number or string, got {kind}")
        elif name in AFFIX_OPERATORS:
            self.scalar_or_list(operand, loc, ("string",), "a string or a non-empty array of strings")
        else:
            scalars = ("string", "number", "boolean", "null")
            if kind == "array":
                self.scalar_or_list(operand, loc, scalars, "")
            elif kind not in ("string", "number"):
                self.problem(loc, f"expects a string, a number or a non-empty array of values, got {kind}")

    def scalar_or_list(self, operand: Any, loc: Loc, items: tuple[str, ...], expected: str) -> None:
        kind = json_type(operand)
        if kind == "array":
            if not operand:
                self.problem(loc, "expects a non-empty array, got an empty array")
            for index, item in enumerate(operand):
                if json_type(item) not in items:
                    words = [_ARTICLE[name] for name in items]
                    wanted = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
                    self.problem((*loc, index), f"expects {wanted}, got {json_type(item)}")
        elif kind not in items:
            self.problem(loc, f"expects {expected}, got {kind}")


def filter_problems(parts: dict[str, Any]) -> list[tuple[Loc, str]]:
    """Every problem of the parts (``{"body": ..., "headers": ..., "query": ...}``), each with its path."""
    problems: list[tuple[Loc, str]] = []
    operators = 0
    for part, value in parts.items():
        if value is None:
            continue
        walk = _Walk(part)
        try:
            walk.filter(value, (part,), 1, "any" if part == "body" else "names")
        except _TooLarge:
            return [
                ((), f"is more than {MAX_FILTER_BYTES} bytes as JSON; at most {MAX_FILTER_BYTES} are allowed")
            ]
        problems.extend(walk.problems)
        operators += walk.operators
    if problems:
        return problems
    given = {part: value for part, value in parts.items() if value is not None}
    size = len(json.dumps(given, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_FILTER_BYTES:
        return [((), f"is {size} bytes as JSON; at most {MAX_FILTER_BYTES} are allowed")]
    if operators > MAX_FILTER_OPERATORS:
        return [((), f"has {operators} operators; at most {MAX_FILTER_OPERATORS} are allowed")]
    return []


class FilterConfig(RequestModel):
    """Which deliveries go on: every part given must match (``core.filters.matches``); none given: all do."""

    body: dict[str, Any] | None = None
    headers: dict[str, Any] | None = None
    query: dict[str, Any] | None = None

    @field_validator("body", "headers", "query")
    @classmethod
    def _empty_is_absent(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return value or None

    @model_validator(mode="after")
    def _valid_filters(self) -> FilterConfig:
        problems = filter_problems({"body": self.body, "headers": self.headers, "query": self.query})
        if problems:
            # A ValidationError raised here keeps each problem's own path: pydantic prefixes it with the
            # model's place, so a webhook's config reports webhookConfig.filterConfig.body.order.$gte.
            raise ValidationError.from_exception_data(
                "FilterConfig",
                [
                    InitErrorDetails(
                        type=PydanticCustomError("filter_config", "{problem}", {"problem": message}),
                        loc=loc,
                        input=None,
                    )
                    for loc, message in problems[:MAX_REPORTED_PROBLEMS]
                ],
            )
        return self
