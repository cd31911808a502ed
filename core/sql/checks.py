"""The allow-list of analytics SQL: which statements, syntax nodes, functions and names a query may hold."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from core.sql.as_of import version_as_of
from core.sql.functions import ALLOWED_ANONYMOUS, ALLOWED_FUNCTIONS
from core.sql.model import SqlError

_ONLY_SELECT = "Send one read-only SELECT (optionally with WITH); data and settings cannot be changed"
_STATEMENTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)

_NODES: tuple[type[exp.Expr], ...] = (
    exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery, exp.From, exp.Join, exp.Where,
    exp.Group, exp.Having, exp.Order, exp.Ordered, exp.Limit, exp.Offset, exp.Fetch, exp.LimitOptions,
    exp.With, exp.CTE, exp.TableAlias, exp.Alias, exp.Column, exp.Identifier, exp.Table, exp.Star,
    exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.Tuple, exp.DataType, exp.DataTypeParam, exp.Var,
    exp.Interval, exp.Unnest, exp.Values, exp.Window, exp.WindowSpec, exp.Distinct, exp.Filter, exp.Cube,
    exp.Rollup, exp.GroupingSets, exp.Bracket, exp.JSONPath, exp.JSONPathRoot, exp.JSONPathKey,
    exp.JSONPathSubscript, exp.JSONPathWildcard, exp.And, exp.Or, exp.Not, exp.EQ, exp.NEQ, exp.GT,
    exp.GTE, exp.LT, exp.LTE, exp.Is, exp.In, exp.Between, exp.Like, exp.Escape, exp.Exists, exp.Any,
    exp.All, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod,
    exp.DPipe, exp.AtTimeZone, exp.IgnoreNulls, exp.RespectNulls,
)  # fmt: skip

_SELECT_ARGS = {"expressions", "from_", "joins", "where", "group", "having", "order", "limit", "offset",
                "with_", "distinct", "windows"}  # fmt: skip
_SET_ARGS = {"this", "expression", "distinct", "with_", "order", "limit", "offset", "by_name", "side", "kind"}
_JOIN_ARGS = {"this", "on", "using", "side", "kind"}
_DATA_TYPES = {
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "VARCHAR", "CHAR",
    "TEXT", "DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "JSON", "ARRAY", "STRUCT",
}  # fmt: skip
_VAR_PARENTS = (exp.Interval, exp.Extract, exp.DateTrunc, exp.TimestampTrunc, exp.DateAdd, exp.DateDiff,
                exp.WindowSpec)  # fmt: skip
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A "table" named like a path or URL would be read as a file by DuckDB's replacement scans.
_FILE_LIKE = re.compile(r"[./\\:*?~]")


def forbidden(message: str, hint: str = _ONLY_SELECT) -> SqlError:
    return SqlError("FORBIDDEN_CONSTRUCT", message, hint)


def statement_error(tree: exp.Expr) -> SqlError | None:
    """Why ``tree`` is not an allowed statement, or None."""
    if isinstance(tree, exp.Command):
        keyword = str(tree.this).upper()
        return forbidden(f"{keyword} statements are not allowed")
    if not isinstance(tree, _STATEMENTS):
        return forbidden(f"{tree.key.upper()} is not a read-only query")
    inner = tree.unnest() if isinstance(tree, exp.Subquery) else tree
    if not isinstance(inner, _STATEMENTS):
        return forbidden(f"{inner.key.upper()} is not a read-only query")
    return None


def _function_name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name)
    if isinstance(node, exp.Func):
        return node.sql_name().lower()
    return node.key.upper()


def _unexpected_args(node: exp.Expr, allowed: set[str]) -> str | None:
    return next((key for key, value in node.args.items() if value and key not in allowed), None)


def _check_node(node: exp.Expr) -> None:
    if isinstance(node, exp.Placeholder | exp.Parameter):
        raise forbidden("Query parameters are not supported", "Write the values into the SQL as literals")
    if isinstance(node, exp.Anonymous):
        if node.name.lower() not in ALLOWED_ANONYMOUS:
            raise forbidden(
                f'Function "{node.name}" is not allowed',
                "Only pure functions may be called: no file, system, catalog or settings functions",
            )
        return
    if isinstance(node, exp.Func) and not isinstance(node, _NODES):
        if not isinstance(node, ALLOWED_FUNCTIONS):
            raise forbidden(
                f'Function "{_function_name(node)}" is not allowed',
                "Only pure functions may be called: no file, system, catalog or settings functions",
            )
        return
    if isinstance(node, exp.Version):
        # Time travel: its table checks where it stands; here only its form (its literal is walked on).
        version_as_of(node)
        return
    if not isinstance(node, _NODES):
        raise forbidden(f"{node.key.upper()} is not allowed in a query")
    if isinstance(node, exp.Select):
        if node.args.get("into"):
            raise forbidden("SELECT ... INTO writes a table")
        extra = _unexpected_args(node, _SELECT_ARGS)
        if extra:
            raise forbidden(f"{extra.rstrip('_').upper()} is not allowed in a query")
        distinct = node.args.get("distinct")
        if isinstance(distinct, exp.Distinct) and distinct.args.get("on"):
            raise forbidden("DISTINCT ON is not supported", "Use a window function such as row_number()")
    elif isinstance(node, exp.SetOperation):
        extra = _unexpected_args(node, _SET_ARGS)
        if extra:
            raise forbidden(f"{extra.upper()} is not allowed in a set operation")
    elif isinstance(node, exp.Join):
        if node.args.get("method") or _unexpected_args(node, _JOIN_ARGS):
            raise forbidden(
                "This kind of join is not supported",
                "Use [INNER|LEFT|RIGHT|FULL|CROSS] JOIN with ON or USING",
            )
        if str(node.args.get("kind") or "").upper() not in ("", "INNER", "OUTER", "CROSS"):
            raise forbidden(
                f"{str(node.args['kind']).upper()} JOIN is not supported", "Use EXISTS or IN instead"
            )
    elif isinstance(node, exp.Group) and node.args.get("all"):
        raise forbidden("GROUP BY ALL is not supported", "List the grouping columns")
    elif isinstance(node, exp.With) and node.args.get("recursive"):
        raise forbidden("WITH RECURSIVE is not supported", "Use a non-recursive WITH")
    elif isinstance(node, exp.Star) and any(node.args.values()):
        raise forbidden("SELECT * with modifiers is not supported", "List the columns")
    elif isinstance(node, exp.Subquery) and _unexpected_args(node, {"this", "alias"}):
        raise forbidden("This subquery form is not supported", "Wrap the subquery in a SELECT")
    elif isinstance(node, exp.Var):
        if not isinstance(node.parent, _VAR_PARENTS) or not _PLAIN_NAME.match(node.name):
            raise forbidden(f"{node.name} is not allowed here")
    elif isinstance(node, exp.DataType):
        if node.this.value not in _DATA_TYPES:
            raise forbidden(f"Type {node.sql(dialect='trino')} is not supported", "Cast to a standard type")
    elif isinstance(node, exp.Identifier):
        if not node.quoted and not _PLAIN_NAME.match(node.name):
            raise forbidden(
                f"{node.name} is not allowed: parameters and dollar-quoted text are not supported",
                "Write values as literals in single quotes",
            )
    elif isinstance(node, exp.Table):
        _check_table(node)
    elif isinstance(node, exp.Column) and (node.args.get("db") or node.args.get("catalog")):
        raise SqlError(
            "UNKNOWN_COLUMN",
            f'Column "{node.sql(dialect="trino")}" does not exist',
            "Name a column as column or table.column",
        )


def _check_table(table: exp.Table) -> None:
    if not isinstance(table.this, exp.Identifier):
        name = _function_name(table.this) if isinstance(table.this, exp.Expr) else "?"
        raise forbidden(
            f'Table function "{name}" is not allowed', "Only tables and UNNEST may appear in FROM"
        )
    if table.args.get("db") or table.args.get("catalog"):
        raise SqlError(
            "UNKNOWN_TABLE", f'Table "{table.sql(dialect="trino")}" does not exist or you cannot read it'
        )
    if _unexpected_args(table, {"this", "alias", "db", "catalog", "version"}):
        raise forbidden(
            "Table modifiers are not supported",
            "Name the table, an optional FOR VERSION AS OF or FOR TIMESTAMP AS OF, and an optional alias",
        )
    if table.args.get("version") and is_cte_reference(table):
        raise forbidden(
            f'"{table.name}" is a WITH query: only tables can be read as of a snapshot',
            "Put FOR VERSION AS OF or FOR TIMESTAMP AS OF on the table inside the WITH query",
        )
    if _FILE_LIKE.search(table.name):
        raise forbidden(
            f'"{table.name}" is not a table name', "Files and URLs cannot be read; name one of your tables"
        )


def check_tree(tree: exp.Expr) -> None:
    """Raise FORBIDDEN_CONSTRUCT (or UNKNOWN_TABLE for qualified names) unless every node is allowed."""
    for node in tree.walk():
        _check_node(node)


def is_cte_reference(table: exp.Table) -> bool:
    """True when ``table`` names a CTE visible where it stands (not a real table)."""
    name = table.name.lower()
    node: exp.Expr = table
    cte_index: int | None = None
    while node.parent is not None:
        parent = node.parent
        if isinstance(parent, exp.With) and isinstance(node, exp.CTE):
            cte_index = node.index
        with_ = parent.args.get("with_")
        if isinstance(with_, exp.With):
            ctes = with_.expressions[: cte_index or 0] if node is with_ else with_.expressions
            if any(cte.alias_or_name.lower() == name for cte in ctes):
                return True
        node = parent
    return False


def real_tables(tree: exp.Expr) -> Iterator[exp.Table]:
    """The references to real tables in ``tree``, in order of appearance (CTE references left out)."""
    for table in tree.find_all(exp.Table, bfs=False):
        if isinstance(table.this, exp.Identifier) and not is_cte_reference(table):
            yield table
