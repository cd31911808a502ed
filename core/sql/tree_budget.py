"""The budget checks that need the parsed tree: how deep expressions nest, and how many columns ``*`` brings.

Both are costs the text does not show. sqlglot finds the SELECT of every column by walking up its ancestors,
several times per analysis, so a chain of n operators (``a = 1 OR a = 2 OR ...``) costs n² steps; and every
column a ``*`` or ``t.*`` expands to is resolved, typed and written like a column written out, so the cost
of ``SELECT *`` follows the width of the tables (up to 500 columns each) and of the WITH queries and derived
tables in between. Both walks here are iterative and linear in the tree, so they are safe on any tree the
text checks let through.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from sqlglot import exp

from core.sql.as_of import ref_key
from core.sql.budget import LIMITS, SqlLimits
from core.sql.model import QueryTable, SqlError

_SCOPES = (exp.Query, exp.Subquery)


def expression_depth(tree: exp.Expr) -> int:
    """The most levels any node sits below the nearest enclosing query (SELECT, set operation, subquery)."""
    deepest = 0
    stack: list[tuple[exp.Expr, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        below = 0 if isinstance(node, _SCOPES) else depth + 1
        stack.extend((child, below) for child in node.iter_expressions())
    return deepest


def _cte_of(table: exp.Table) -> exp.CTE | None:
    """The WITH query ``table`` names where it stands (the rule of ``checks.is_cte_reference``), or None."""
    name = table.name.lower()
    node: exp.Expr = table
    inside: exp.CTE | None = None
    while node.parent is not None:
        parent = node.parent
        if isinstance(parent, exp.With) and isinstance(node, exp.CTE):
            inside = node
        with_ = parent.args.get("with_")
        if isinstance(with_, exp.With):
            ctes: list[exp.CTE] = with_.expressions
            if node is with_ and inside is not None:
                ctes = ctes[: inside.index or 0]
            for cte in reversed(ctes):
                if cte.alias_or_name.lower() == name:
                    return cte
        node = parent
    return None


def _aliased(node: exp.Expr, width: int) -> int:
    alias = node.args.get("alias")
    columns = alias.columns if isinstance(alias, exp.TableAlias) else []
    return len(columns) or width


class _Widths:
    """Output widths of the query's parts (an upper bound of what qualification finds), each computed once;
    ``expanded`` sums the columns of every star met on the way."""

    def __init__(self, tables: Mapping[str, QueryTable]) -> None:
        self.tables = tables
        self.of: dict[int, int] = {}
        self.expanded = 0

    def query(self, node: exp.Expr) -> int:
        key = id(node)
        if key not in self.of:
            self.of[key] = 0  # a reference back to a query being measured adds nothing
            self.of[key] = self._measure(node)
        return self.of[key]

    def _measure(self, node: exp.Expr) -> int:
        if isinstance(node, exp.Select):
            return self._select(node)
        if isinstance(node, exp.SetOperation):
            return self.query(node.this)
        if isinstance(node, exp.Subquery | exp.CTE):
            return _aliased(node, self.query(node.this))
        if isinstance(node, exp.Values):
            first = node.expressions[0] if node.expressions else None
            return _aliased(node, len(first.expressions) if isinstance(first, exp.Tuple) else 1)
        if isinstance(node, exp.Table):
            cte = _cte_of(node)
            if cte is not None:
                width = self.query(cte)
            else:
                shape = self.tables.get(ref_key(node))
                width = len(shape.columns) if shape is not None else 0
            joined = sum(self.query(join.this) for join in node.args.get("joins") or [])
            return _aliased(node, width) + joined
        if isinstance(node, exp.Unnest):
            return _aliased(node, len(node.expressions) + bool(node.args.get("offset")))
        return 1

    def _select(self, select: exp.Select) -> int:
        holders = [select.args.get("from_"), *(select.args.get("joins") or [])]
        sources = [holder.this for holder in holders if isinstance(holder, exp.From | exp.Join)]
        by_alias = {source.alias_or_name.lower(): source for source in sources}
        width = 0
        for projection in select.expressions:
            if isinstance(projection, exp.Star):
                stars = sum(self.query(source) for source in sources)
            elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
                named = by_alias.get(projection.table.lower())
                stars = self.query(named) if named is not None else 0
            else:
                width += 1
                continue
            self.expanded += stars
            width += stars
        return width


def star_columns(tree: exp.Expr, tables: Mapping[str, QueryTable]) -> int:
    """How many columns the ``*`` and ``t.*`` of ``tree`` expand to, over the tables as the caller sees them
    (an upper bound: a USING column is counted on both sides)."""
    widths = _Widths(tables)
    for select in tree.find_all(exp.Select):
        widths.query(select)
    return widths.expanded


def check_tree(tree: exp.Expr, limits: SqlLimits = LIMITS) -> None:
    """Refuse (PARSE_ERROR) a parsed query whose expressions nest too deep or that joins too many tables."""
    depth = expression_depth(tree)
    if depth > limits.max_expression_depth:
        raise SqlError(
            "PARSE_ERROR",
            f"An expression in the SQL nests {depth} levels deep; the limit is {limits.max_expression_depth}",
            "Write long chains of OR-ed equalities as IN (...), and split long chains of operators",
        )
    joins = sum(1 for _ in tree.find_all(exp.Join))
    if joins > limits.max_joins:
        raise SqlError(
            "PARSE_ERROR",
            f"The SQL has {joins} joins; the limit is {limits.max_joins}",
            "Join fewer tables in one query, or split the query",
        )


def check_stars(
    tree: exp.Expr, tables: Mapping[str, QueryTable], tokens: int, limits: SqlLimits = LIMITS
) -> None:
    """Refuse (PARSE_ERROR) a query of ``tokens`` tokens whose ``*`` would bring it over the token limit."""
    count = star_columns(tree, tables)
    size = tokens + math.ceil(limits.star_column_tokens * count)
    if size > limits.max_tokens:
        raise SqlError(
            "PARSE_ERROR",
            f"* and t.* in the SQL bring {count:,} columns, which makes the query too large to analyse: "
            f"{size:,} tokens counting each such column as {limits.star_column_tokens:g}; "
            f"the limit is {limits.max_tokens:,}",
            "Select only the columns you need instead of *, especially over wide tables",
        )
