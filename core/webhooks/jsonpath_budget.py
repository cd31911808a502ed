"""What a tenant's jsonPathMappings may cost: limits checked when a webhook is saved, and the size budget of
the variables a delivery produces.

Saving refuses what cannot be bounded (too many mappings, too long an expression, too many recursive
descents, each of which multiplies the nodes visited by the depth of the document). Evaluation of what
remains is bounded twice: expressions that are not plain paths run in a sandbox worker under a CPU-time
budget (see sinks/scripting/workers.py), and the variables of one delivery may not exceed `variables_budget`
bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

MAX_MAPPINGS = 100
MAX_EXPRESSION_CHARS = 512
MAX_RECURSIVE_DESCENTS = 2
MIN_VARIABLES_BYTES = 1 << 20


def recursive_descents(expression: str) -> int:
    """How many `..` steps the expression has, outside quoted names."""
    count = 0
    quote: str | None = None
    position = 0
    while position < len(expression):
        char = expression[position]
        if quote is not None:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif expression.startswith("..", position):
            count += 1
            position += 1
        position += 1
    return count


def mapping_problem(name: str, expression: str) -> str | None:
    """Why one mapping is refused, or None."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        return (
            f"JSONPath for variable '{name}' is {len(expression)} characters long; "
            f"at most {MAX_EXPRESSION_CHARS} are allowed."
        )
    descents = recursive_descents(expression)
    if descents > MAX_RECURSIVE_DESCENTS:
        return (
            f"JSONPath for variable '{name}' has {descents} recursive descents ('..'); "
            f"at most {MAX_RECURSIVE_DESCENTS} are allowed."
        )
    return None


def mappings_problem(mappings: Mapping[str, object]) -> str | None:
    if len(mappings) > MAX_MAPPINGS:
        return f"{len(mappings)} JSONPath mappings; at most {MAX_MAPPINGS} are allowed."
    return None


def variables_budget(body_bytes: int) -> int:
    """Bytes the variables of one delivery may take together: twice the body, and at least 1 MiB."""
    return max(MIN_VARIABLES_BYTES, 2 * body_bytes)
