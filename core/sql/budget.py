"""How much analysis a caller's SQL may cost, measured on the text before sqlglot reads it.

sqlglot is pure Python, and its cost follows the shape of the text (measured by bench/bench_sql_budget.py):

- parsing is linear in tokens, except inside a bracket that follows a type name (``ARRAY[...]``,
  ``ROW(...)``, ``DECIMAL(...)``, ``DATE(...)``): the parser first tries to read it as a type, then reads it
  again as an expression, so a token inside k nested ones is read 2^k times. Tokens are counted that way;
- every SELECT is a scope that qualification resolves, walks and types separately;
- every level of brackets (and of CASE ... END) costs about two dozen Python frames, and past about 38 levels
  the recursion limit is reached.

The scan knows only what can hide a bracket or a keyword from it, exactly as the Trino tokenizer reads them:
string literals ('' escapes a quote), quoted identifiers ("" escapes a quote) and comments (``--`` to the end
of the line, ``/* */`` and ``{# #}``, not nested). Every refusal is a PARSE_ERROR naming the limit and the
query's value. What the text cannot tell (how far ``*`` expands, how deep an operator chain nests) is checked
on the tree by ``core.sql.tree_budget``; a CPU deadline around the whole analysis bounds the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sqlglot.dialects.trino import Trino

from core.sql.model import MAX_SQL_BYTES, SqlError


@dataclass(frozen=True)
class SqlLimits:
    """The limits. ``max_tokens`` bounds the columns * brings too, each counting as ``star_column_tokens``.

    Set so that the worst query inside all of them costs about 1.2 times what an ordinary ``SELECT *`` over
    the widest table (500 columns) costs, which they must allow (bench/bench_sql_budget.py prints both);
    the TPC-H queries use at most a quarter of each (tests/unit/test_sql_budget.py)."""

    max_bytes: int = MAX_SQL_BYTES
    max_depth: int = 24
    max_tokens: int = 1_000
    max_selects: int = 16
    max_ctes: int = 12
    max_joins: int = 32
    max_expression_depth: int = 64
    star_column_tokens: float = 1.5


LIMITS = SqlLimits()


@dataclass(frozen=True)
class TextMeasure:
    """What the scan found: UTF-8 bytes, deepest nesting, tokens (weighted), SELECTs and WITH queries."""

    bytes: int
    depth: int
    tokens: int
    selects: int
    ctes: int


# The words whose following bracket the parser first tries to read as a type (see the module docstring).
_TYPE_WORDS = frozenset(
    word
    for word, token in Trino.tokenizer_class.KEYWORDS.items()
    if token in Trino.parser_class.TYPE_TOKENS and word.replace("_", "").isalnum()
)
# The pieces of the scan, as the Trino tokenizer reads them.
_COMMENT = r"--[^\n]*|/\*.*?(?:\*/|\Z)|\{\#.*?(?:\#\}|\Z)"
_KINDS = {
    "string": r"'(?:[^']|'')*'?",
    "quoted": r'"(?:[^"]|"")*"?',
    "word": r"[^\W\d]\w*",
    "number": r"\d[\w.]*|\.\d\w*",
    "open": r"[(\[]",
    "close": r"[)\]]",
    "op": r"<=|>=|<>|!=|\|\||->|=>|::|.",
}
_NAMED = re.compile(
    f"(?P<skipped>\\s+|{_COMMENT})|" + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _KINDS.items()),
    re.DOTALL,
)
# One group, whatever is skipped before a token consumed with it: findall runs in C, several times faster
# than a match object per token (the scan of 100 KB must stay cheap). The token is optional, so a match never
# fails and never backtracks (trailing whitespace or comments give one empty match).
_BARE = re.compile(f"(?:\\s|{_COMMENT})*({'|'.join(_KINDS.values())})?", re.DOTALL)
_CASE = 0  # what the stack of open nestings holds: a CASE, a plain bracket, a bracket after a type name
_BRACKET = 1
_TYPE_BRACKET = 2
# After WITH, these words make it part of a type or UNNEST, not the start of WITH queries.
_NOT_A_WITH_LIST = frozenset({"ORDINALITY", "TIME"})
_QUERY_START = frozenset({"VALUES", "TABLE"})


def tokens(sql: str) -> Iterator[tuple[str, str, int]]:
    """The significant tokens of ``sql`` as (kind, text, offset); kind is one of word, number, string,
    quoted, open, close or op. Whitespace and comments are left out."""
    for match in _NAMED.finditer(sql):
        kind = match.lastgroup
        if kind is not None and kind != "skipped":
            yield kind, match.group(), match.start()


class _Scan:
    """The state of one scan; ``word`` and ``bracket`` handle the tokens that change it."""

    def __init__(self) -> None:
        self.stack: list[int] = []
        self.type_brackets = self.depth = self.selects = self.ctes = 0
        self.with_lists: set[int] = set()  # depths at which a WITH list is open (commas separate its queries)

    def open(self, kind: int) -> None:
        self.stack.append(kind)
        self.type_brackets += kind == _TYPE_BRACKET
        self.depth = max(self.depth, len(self.stack))

    def close(self) -> None:
        while self.stack:
            closed = self.stack.pop()
            if closed != _CASE:
                self.type_brackets -= closed == _TYPE_BRACKET
                break
        if self.with_lists:
            self.with_lists = {level for level in self.with_lists if level <= len(self.stack)}

    def word(self, word: str, previous: str) -> None:
        """``word`` in upper case, after the word ``previous`` ("" after anything else)."""
        if word == "CASE":
            self.open(_CASE)
        elif word == "END" and self.stack and self.stack[-1] == _CASE:
            self.stack.pop()
        elif word == "SELECT":
            self.selects += 1
            self.with_lists.discard(len(self.stack))
        elif word == "WITH":
            self.ctes += 1
            self.with_lists.add(len(self.stack))
        elif word in _NOT_A_WITH_LIST and previous == "WITH":
            self.ctes -= 1
            self.with_lists.discard(len(self.stack))
        elif word in _QUERY_START:
            self.with_lists.discard(len(self.stack))


def measure_text(sql: str) -> TextMeasure:
    """Scan ``sql`` once; the token count is exact for well-formed SQL up to how operators are split."""
    scan = _Scan()
    count = 0
    weight = 1  # 2 ** (type brackets open): how many times the parser reads a token here
    previous = ""  # the word just before, in upper case; ")" after a closing bracket, "" after anything else
    for text in _BARE.findall(sql):
        if not text:
            continue  # trailing whitespace or comments
        count += weight
        first = text[0]
        if first.isalpha() or first == "_":
            word = text.upper()
            scan.word(word, previous)
            previous = word
            continue
        if first in "([":
            if previous == ")":  # WITH a AS (...) (SELECT ...): the query after the WITH list
                scan.with_lists.discard(len(scan.stack))
            scan.open(_TYPE_BRACKET if previous in _TYPE_WORDS else _BRACKET)
            weight = 1 << min(scan.type_brackets, 40)
        elif first in ")]":
            scan.close()
            weight = 1 << min(scan.type_brackets, 40)
            previous = ")"
            continue
        elif first == ",":
            scan.ctes += len(scan.stack) in scan.with_lists
        previous = ""
    return TextMeasure(len(sql.encode("utf-8")), scan.depth, count, scan.selects, scan.ctes)


def _over(message: str, hint: str) -> SqlError:
    return SqlError("PARSE_ERROR", message, hint)


def check_size(sql: str, limits: SqlLimits = LIMITS) -> None:
    """Refuse ``sql`` (PARSE_ERROR) when it is larger than the interface's limit (100 KB)."""
    size = len(sql.encode("utf-8"))
    if size > limits.max_bytes:
        raise _over(
            f"SQL is larger than {limits.max_bytes // 1024} KB",
            f"The query is {size:,} bytes and the limit is {limits.max_bytes:,}; shorten it",
        )


def check_text(sql: str, limits: SqlLimits = LIMITS) -> TextMeasure:
    """Refuse ``sql`` (PARSE_ERROR) when its text is over a limit; otherwise return what was measured."""
    check_size(sql, limits)
    found = measure_text(sql)
    if found.depth > limits.max_depth:
        raise _over(
            f"SQL nests brackets and CASE expressions {found.depth} levels deep; "
            f"the limit is {limits.max_depth}",
            "Flatten the query: move nested subqueries into WITH queries and split deeply nested expressions",
        )
    if found.tokens > limits.max_tokens:
        raise _over(
            f"SQL is too long to analyse: {found.tokens:,} tokens; the limit is {limits.max_tokens:,}",
            "Shorten the query: fewer columns, conditions or list items (a long IN list can be a join). "
            "Names, numbers, strings and symbols are tokens; one inside ARRAY[...], ROW(...) or another "
            "type-named bracket counts twice, four times two levels in, and so on",
        )
    if found.selects > limits.max_selects:
        raise _over(
            f"SQL has {found.selects} SELECTs; the limit is {limits.max_selects}",
            "Combine subqueries or UNION branches, or split the query",
        )
    if found.ctes > limits.max_ctes:
        raise _over(
            f"SQL has {found.ctes} WITH queries; the limit is {limits.max_ctes}",
            "Combine WITH queries, or split the query",
        )
    return found


def too_deep() -> SqlError:
    """The refusal when the analysis ran out of Python's recursion depth anyway."""
    return _over("SQL is nested too deeply", "Simplify the query: flatten nested subqueries and expressions")


def too_complex(cpu_ms: int) -> SqlError:
    """The refusal when the analysis used up its CPU budget."""
    return _over(
        f"The query is too complex to analyse within {cpu_ms} ms",
        "Simplify it: fewer columns, subqueries, joins or WITH queries, and list columns instead of *",
    )
