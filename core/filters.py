"""Does a delivery pass a webhook's content filter? Hookdeck's filter syntax, matched without I/O.

A filter is JSON laid over the payload:

- A plain value matches an equal value. Numbers compare as numbers, and a number equals a string that
  spells it in JSON number syntax, either way round (``100`` matches ``"100"`` and ``"100.0"``, as
  Hookdeck's loose JavaScript equality does); strings are case-sensitive; ``true``, ``false`` and ``null``
  match only themselves (no JavaScript coercion: ``true`` is not ``1``, ``null`` is not a missing field).
- An object matches when every key matches: a plain key names a field that must be present and match,
  recursively; other fields of the payload are ignored. A field looked up on a value that is not an object
  is missing.
- An array value is searched one level deep: a plain value, an object's field conditions and the
  ``$gt $gte $lt $lte $startsWith $endsWith $in $nin`` tests match an array when one of its direct elements
  does (``{"tags": "gift"}`` matches ``["gift", "card"]``; ``{"items": {"sku": "a", "qty": 2}}`` needs one
  item with both). Arrays inside arrays are not flattened. A filter array (``{"tags": ["a", "b"]}``) needs
  an array value containing a match for each of its elements, in any order.
- ``$eq``/``$neq``: deep equality of the whole value (key order ignored; an array is never searched).
  ``$gt $gte $lt $lte``: two strings compare by code point (ISO timestamps order correctly), anything else
  as numbers, a numeric string counting as its number; a value that is neither never matches.
  ``$in``: with an array operand, the value (or an element of an array value) is one of its members; with a
  string operand, a string value contains it or an array value has it as an element; with a number operand,
  an array value has it as an element. ``$nin`` is the opposite where ``$in`` applies and no match
  elsewhere. ``$startsWith``/``$endsWith`` take a string or an array of strings (any of them).
  ``$exist: true|false`` tests presence (``null`` is present).
- ``$or``/``$and`` take an array of filters applied to the same value; ``$not`` takes a filter and inverts
  it. Several keys in one object all apply. A missing field matches only ``$exist: false`` and whatever
  ``$not``/``$or``/``$and`` make of that; ``$neq`` on a missing field does not match (as at Hookdeck).
- A type that does not fit an operator is not an error: that condition does not match.

Parts: ``body`` is the parsed JSON body. A body that is not JSON (absent, unparsable, or the literal
``null``) matches no body filter, so a delivery with such a body passes only filters without a body part.
``headers``: names are case-insensitive, values case-sensitive text. ``query``: names are case-sensitive,
values text. A header or query parameter given once is a string, given several times an array of its values.

Cost: each filter node meets each payload node at most once, so matching is bounded by the size of the
filter times the size of the payload parts it touches, and recursion follows the filter's depth (at most
``MAX_FILTER_DEPTH``), never the payload's: a hostile payload can be wide or deep at no extra risk. That
product can still be large (a 1,500-member ``$in`` against a 100,000-element array is 150 million
comparisons), so ``matches`` takes ``max_steps``: every value compared counts one step, and past the budget
it raises ``FilterTooCostly`` instead of going on (``MAX_MATCH_STEPS`` is what the trigger allows). Real
filters on real payloads take tens to hundreds of steps.

Where this differs from Hookdeck (hookdeck/simple-json-match): no ``$ref``; numeric coercion only for
JSON-number spellings (JavaScript also equates ``" 12"``, ``"0x10"``, ``""`` and ``0``, ``true`` and
``1``); ordering and affix tests search an array value's elements (Hookdeck never matches them on arrays);
a number ``$in`` operand never matches a string (Hookdeck tests the digits as a substring); ``$not``
works at any level (at Hookdeck it never matches below a field holding a plain value); ``$eq`` on
objects ignores key order; ``$and`` across an array's elements may use different elements; a path
through a missing parent is missing, so ``$exist: false`` below it matches. Saving refuses what Hookdeck
would silently read another way (unknown ``$`` keys, wrong operand types, empty arrays and objects).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import Any

from schemas.filters import AFFIX_OPERATORS, ORDER_OPERATORS, FilterConfig


class _Missing(Enum):
    FIELD = "missing"


MISSING = _Missing.FIELD
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# Longer strings are not numbers: parsing them could cost more than the match is worth.
_MAX_NUMBER_CHARS = 64
_SEARCH_CHARS_PER_STEP = 64 * 1024
MAX_MATCH_STEPS = 50_000
"""The trigger's budget of one delivery's match, in values compared: 1-2 µs each, so 50-100 ms of CPU."""


class FilterTooCostly(Exception):
    """The match needed more than its ``max_steps``; whether the delivery matches is not known."""

    def __init__(self, max_steps: int) -> None:
        super().__init__(f"the filter needed more than {max_steps} comparisons for this delivery")
        self.max_steps = max_steps


def matches(
    filter: FilterConfig,
    *,
    body: Any,
    headers: Mapping[str, str | Sequence[str]],
    query: Mapping[str, str | Sequence[str]],
    max_steps: int | None = None,
) -> bool:
    """True when every part the filter has matches; the small parts are checked before the body.

    With ``max_steps``, raises ``FilterTooCostly`` once more values than that have been compared.
    """
    matcher = _Matcher(max_steps)
    if filter.headers is not None and not matcher.match(_HeaderNames(fold(headers.items())), filter.headers):
        return False
    if filter.query is not None and not matcher.match(collect(query.items()), filter.query):
        return False
    if filter.body is not None:
        return body is not None and matcher.match(body, filter.body)
    return True


def collect(pairs: Iterable[tuple[str, str | Sequence[str]]]) -> dict[str, Any]:
    """Name → the value given once, or the array of the values given several times (in order)."""
    values: dict[str, list[str]] = {}
    for name, value in pairs:
        given = values.setdefault(name, [])
        if isinstance(value, str):
            given.append(value)
        else:
            given.extend(str(item) for item in value)
    return {name: given[0] if len(given) == 1 else given for name, given in values.items()}


def fold(pairs: Iterable[tuple[str, str | Sequence[str]]]) -> dict[str, Any]:
    """Header names lower-cased; values of names that differ only in case are gathered."""
    return collect((name.lower(), value) for name, value in pairs)


class _HeaderNames(dict[str, Any]):
    """Header names are case-insensitive (RFC 9110), so a filter's names are looked up folded."""

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.lower())


class _Matcher:
    """One match, counting its steps: each value compared is one (each affix tried, each 64 KiB searched)."""

    def __init__(self, max_steps: int | None) -> None:
        self._max_steps = max_steps
        self._left = max_steps if max_steps is not None else sys.maxsize

    def _step(self, cost: int = 1) -> None:
        self._left -= cost
        if self._left < 0:
            raise FilterTooCostly(self._max_steps or 0)

    def match(self, value: Any, flt: Any) -> bool:
        self._step()
        if isinstance(flt, dict):
            return self._match_object(value, flt)
        if isinstance(flt, list):
            if not isinstance(value, list):
                return False
            return all(any(self.match(item, wanted) for item in value) for wanted in flt)
        if isinstance(value, list):
            return any(self._same(item, flt) for item in value)
        return self._same(value, flt)

    def _match_object(self, value: Any, flt: dict[str, Any]) -> bool:
        fields = []
        for key, wanted in flt.items():
            if key.startswith("$"):
                if not self._operator(value, key, wanted):
                    return False
            else:
                fields.append((key, wanted))
        if not fields:
            return True
        if isinstance(value, list):
            return any(self._fields(item, fields) for item in value)
        return self._fields(value, fields)

    def _fields(self, value: Any, fields: list[tuple[str, Any]]) -> bool:
        if not isinstance(value, dict):
            return all(self.match(MISSING, wanted) for _, wanted in fields)
        return all(self.match(value.get(key, MISSING), wanted) for key, wanted in fields)

    def _operator(self, value: Any, name: str, operand: Any) -> bool:
        if name == "$exist":
            return (value is not MISSING) is operand
        if name == "$not":
            return not self.match(value, operand)
        if name == "$or":
            return isinstance(operand, list) and any(self.match(value, each) for each in operand)
        if name == "$and":
            return isinstance(operand, list) and all(self.match(value, each) for each in operand)
        if value is MISSING:
            return False
        if name == "$eq":
            return self._equal(value, operand)
        if name == "$neq":
            return not self._equal(value, operand)
        if name in ("$in", "$nin"):
            found = self._contains(value, operand)
            return found is (name == "$in")
        if name in ORDER_OPERATORS or name in AFFIX_OPERATORS:
            if isinstance(value, list):
                return any(self._test(name, item, operand) for item in value)
            return self._test(name, value, operand)
        return False

    def _test(self, name: str, value: Any, operand: Any) -> bool:
        self._step()
        if name in AFFIX_OPERATORS:
            if not isinstance(value, str):
                return False
            affixes = operand if isinstance(operand, list) else [operand]
            self._step(len(affixes) - 1)
            check = value.startswith if name == "$startsWith" else value.endswith
            return any(isinstance(affix, str) and check(affix) for affix in affixes)
        order = _order(value, operand)
        if order is None:
            return False
        if name == "$gt":
            return order > 0
        if name == "$gte":
            return order >= 0
        if name == "$lt":
            return order < 0
        return order <= 0

    def _contains(self, value: Any, operand: Any) -> bool | None:
        """$in: True or False where it applies, None where the types do not fit."""
        if isinstance(operand, list):
            if isinstance(value, list):
                return any(_scalar(item) and self._one_of(item, operand) for item in value)
            return self._one_of(value, operand) if _scalar(value) else None
        if isinstance(value, list):
            return any(self._same(item, operand) for item in value)
        if isinstance(operand, str) and isinstance(value, str):
            # A substring search reads the whole value: a long one costs a step per 64 KiB.
            self._step(1 + len(value) // _SEARCH_CHARS_PER_STEP)
            return operand in value
        return None

    def _one_of(self, value: Any, members: list[Any]) -> bool:
        return any(self._same(value, member) for member in members)

    def _equal(self, value: Any, expected: Any) -> bool:
        """Deep equality, guided by the operand so its cost is bounded by the operand's size."""
        self._step()
        if isinstance(expected, dict):
            if not isinstance(value, dict) or len(value) != len(expected):
                return False
            return all(key in value and self._equal(value[key], item) for key, item in expected.items())
        if isinstance(expected, list):
            if not isinstance(value, list) or len(value) != len(expected):
                return False
            return all(self._equal(item, wanted) for item, wanted in zip(value, expected, strict=True))
        return _same(value, expected)

    def _same(self, value: Any, expected: Any) -> bool:
        self._step()
        return _same(value, expected)


def _order(value: Any, operand: Any) -> int | None:
    """Sign of value minus operand, or None where the two do not compare."""
    if isinstance(value, str) and isinstance(operand, str):
        return (value > operand) - (value < operand)
    left, right = _number(value), _number(operand)
    if left is None or right is None:
        return None
    if left != left or right != right:  # NaN orders with nothing
        return None
    return (left > right) - (left < right)


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _same(value: Any, expected: Any) -> bool:
    """Equality of two plain values: numbers as numbers (a numeric string counting as its number)."""
    if isinstance(expected, bool) or expected is None:
        return value is expected
    if isinstance(expected, int | float):
        number = _number(value)
        return number is not None and number == expected
    if isinstance(expected, str):
        if isinstance(value, str):
            return value == expected
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = _number(expected)
            return number is not None and number == value
    return False


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str) and len(value) <= _MAX_NUMBER_CHARS and _NUMBER.fullmatch(value):
        # An integer stays exact (a 19-digit id must not round); anything else is a float.
        return int(value) if value.lstrip("-").isdigit() else float(value)
    return None
