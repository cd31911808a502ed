"""Replace `@@{variableName}` references in a handler's configured inputs with a delivery's variables.

Rules (also in docs/scripting.md):
- Every string found in nested dicts, lists and tuples is searched; dict keys are never changed, and values
  that are not strings (numbers, booleans, null) pass through untouched.
- A reference to a name that is not among the variables is left as written, so a misspelt name stays
  visible in the handler's input and in the execution history instead of silently becoming empty.
- Substitution is a single pass: a variable whose value itself contains `@@{...}` is inserted verbatim
  and not expanded again, so a delivery cannot pull in other variables through its own data.
- The result keeps the type of the input: a string that is exactly `@@{name}` stays a string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

VARIABLE_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
REFERENCE = re.compile(r"@@\{(" + VARIABLE_NAME + r")\}")


def substitute(value: Any, variables: Mapping[str, str]) -> Any:
    """Return a copy of `value` with every known `@@{name}` replaced by `variables[name]`."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        return variables[name] if name in variables else match.group(0)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return REFERENCE.sub(replace, item) if "@@{" in item else item
        if isinstance(item, Mapping):
            return {key: walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        if isinstance(item, tuple):
            return tuple(walk(inner) for inner in item)
        return item

    return walk(value)


def referenced_variables(value: Any) -> set[str]:
    """Names referenced as `@@{name}` anywhere in the strings of `value` (dict keys excluded)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.update(REFERENCE.findall(item))
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found
