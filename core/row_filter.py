"""Row filters of table grants: one SQL predicate over the table's own columns, nothing else."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

# An allow-list: comparisons, boolean logic, literals, casts and a few pure functions. Anything else
# (subqueries, file or system functions, parameters) is refused.
_ALLOWED = (
    exp.Column,
    exp.Identifier,
    exp.Literal,
    exp.Boolean,
    exp.Null,
    exp.Paren,
    exp.Tuple,
    exp.DataType,
    exp.And,
    exp.Or,
    exp.Not,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.In,
    exp.Between,
    exp.Is,
    exp.Like,
    exp.ILike,
    exp.Cast,
    exp.TryCast,
    exp.Neg,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
    exp.Lower,
    exp.Upper,
    exp.Coalesce,
    exp.CurrentDate,
    exp.CurrentTimestamp,
    exp.Interval,
    exp.Var,
)


class RowFilterError(ValueError):
    pass


def check_row_filter(text: str, columns: set[str]) -> str:
    """Return the predicate in canonical form (Trino dialect) or raise :class:`RowFilterError`."""
    try:
        # Parsed, never executed: the text only becomes a WHERE clause to reuse sqlglot's predicate grammar.
        statements = sqlglot.parse(f"SELECT 1 FROM t WHERE {text}", read="trino")  # noqa: S608
    except ParseError as exc:
        raise RowFilterError(
            f"rowFilter is not a valid SQL predicate: {exc.errors[0]['description']}"
        ) from exc
    if len(statements) != 1 or not isinstance(statements[0], exp.Select):
        raise RowFilterError("rowFilter must be a single predicate")
    where = statements[0].args.get("where")
    if where is None:
        raise RowFilterError("rowFilter is empty")
    predicate = where.this
    for node in predicate.walk():
        if not isinstance(node, _ALLOWED):
            raise RowFilterError(f"rowFilter may not contain {node.key.upper()}")
        if isinstance(node, exp.Column) and (node.table or node.name not in columns):
            raise RowFilterError(f"rowFilter names an unknown column: {node.sql()}")
    return str(predicate.sql(dialect="trino"))
