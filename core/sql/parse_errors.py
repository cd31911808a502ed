"""sqlglot's errors as messages for the caller: the position, and what is wrong in the caller's words.

sqlglot words some errors for its own developers: a function called with too few arguments reads
"Required keyword: 'this' missing for <class 'sqlglot.expressions.core.Glob'>", a misplaced keyword
"Expected table name but got <Token token_type: TokenType.GLOB, ...>". These name the function the caller
wrote, or the token's text, instead; whatever still shows sqlglot's internals becomes "invalid syntax".
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError

from core.sql.budget import tokens
from core.sql.functions import ALLOWED_FUNCTIONS
from core.sql.model import SqlError

_HINT = "Check the SQL near that position"
_NOT_ALLOWED_HINT = "Only pure functions may be called: no file, system, catalog or settings functions"
_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]+\.(\w+)'>")
_TOO_MANY = re.compile(
    r"The number of provided arguments \((\d+)\) is greater than the maximum number of supported "
    r"arguments \((\d+)\)"
)
_TOKEN_REPR = re.compile(r"<Token token_type: [\w.]+, text: (.*?), line: \d+, col: \d+.*?>")
_INTERNAL = re.compile(r"<class |<Token |sqlglot|TokenType\.|\bExpr\b|\bexp\.")


def position(sql: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``sql``."""
    before = sql[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _offset(sql: str, line: int, col: int) -> int:
    start = 0
    for _ in range(line - 1):
        found = sql.find("\n", start)
        if found < 0:
            break
        start = found + 1
    return start + max(col - 1, 0)


def called_function(sql: str, offset: int) -> str | None:
    """The name written before the innermost bracket still open at ``offset``, if it is a call."""
    open_calls: list[str | None] = []
    previous: str | None = None
    for kind, text, start in tokens(sql):
        if start >= offset:
            break
        if kind == "open":
            open_calls.append(previous)
        elif kind == "close" and open_calls:
            open_calls.pop()
        previous = text if kind == "word" else None
    return open_calls[-1] if open_calls else None


def _missing_argument(name: str | None, class_name: str) -> tuple[str, str]:
    node = getattr(exp, class_name, None)
    if not isinstance(node, type) or not issubclass(node, exp.Expr) or name is None:
        return "an operand is missing", "Complete the expression"
    if issubclass(node, exp.Func) and issubclass(node, ALLOWED_FUNCTIONS):
        return f'function "{name}" is missing an argument', f"Check the arguments of {name}"
    if issubclass(node, exp.Func) or name.lower() == node.key:
        # A function that is not allowed, or an operator keyword written as a call (glob('/x')).
        return f'"{name}" is not a function you can call', _NOT_ALLOWED_HINT
    return "an operand is missing", "Complete the expression"


def describe(sql: str, description: str, offset: int) -> tuple[str, str]:
    """What is wrong, in the caller's words, and a hint."""
    name = called_function(sql, offset)
    missing = _MISSING.search(description)
    if missing is not None:
        return _missing_argument(name, missing.group(2))
    too_many = _TOO_MANY.search(description)
    if too_many is not None:
        given, most = too_many.groups()
        called = f'function "{name}"' if name else "a function"
        return f"{called} takes at most {most} argument(s), {given} given", "Remove the extra arguments"
    return user_text(description), _HINT


def parse_error(sql: str, exc: SqlglotError) -> SqlError:
    """The PARSE_ERROR for sqlglot's ``exc`` on ``sql``, pointing at the position."""
    if isinstance(exc, ParseError) and exc.errors:
        error = exc.errors[0]
        line, col = int(error.get("line") or 1), int(error.get("col") or 1)
        what, hint = describe(sql, str(error.get("description") or "invalid syntax"), _offset(sql, line, col))
        return SqlError("PARSE_ERROR", f"Syntax error at line {line}, column {col}: {what}", hint)
    if isinstance(exc, TokenError):
        match = re.search(r"Error tokenizing '(.*)'", str(exc), re.S)
        found = sql.find(match.group(1)) if match else -1
        line, col = position(sql, found + len(match.group(1)) if match and found >= 0 else len(sql))
        return SqlError(
            "PARSE_ERROR",
            f"Syntax error at line {line}, column {col}: unterminated string or quoted name",
            "Close every quote",
        )
    return SqlError("PARSE_ERROR", f"Syntax error: {user_text(str(exc))}", _HINT)


def user_text(message: str) -> str:
    """The first line of a sqlglot message, or "invalid syntax" when it shows sqlglot's internals."""
    lines = message.splitlines()
    first = _TOKEN_REPR.sub(lambda m: f'"{m.group(1)}"', lines[0] if lines else "")[:300]
    return "invalid syntax" if not first or _INTERNAL.search(first) else first
