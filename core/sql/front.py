"""The SQL front of analytics queries: parse a caller's Trino SQL, check it against an allow-list, resolve it
against the tables the caller may see and write it as DuckDB SQL over per-query views.

Rules:

- One read-only statement: a SELECT, a set operation of SELECTs or a VALUES list, optionally with WITH
  (not RECURSIVE). Everything else (DML, DDL, settings, PRAGMA, COPY, ATTACH, INSTALL, SELECT INTO, ...) is
  FORBIDDEN_CONSTRUCT.
- Every node of the tree must be of an allowed type and every function an allowed pure function
  (``core.sql.functions``). Table functions (except UNNEST), file and URL readers, system and settings
  functions, parameters and dollar-quoted text are FORBIDDEN_CONSTRUCT; a file path in FROM too.
- Tables are named by their bare SQL name (case-insensitive); a schema or catalog part is UNKNOWN_TABLE,
  like a table the caller cannot read. CTE names shadow tables within their scope.
- Columns are resolved against the caller's visible columns only (UNKNOWN_COLUMN otherwise); masked columns
  follow ``core.sql.masking``.
- Each table becomes the view ``view_name(sql_name)`` aliased to the table's name, so qualified column
  references keep working; result column names are explicit aliases, so DuckDB reports exactly them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import OptimizeError, ParseError, SqlglotError, TokenError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from core.sql.checks import check_tree, is_cte_reference, real_tables, statement_error
from core.sql.functions import translate
from core.sql.masking import json_outputs, masked_outputs
from core.sql.model import (
    MAX_SQL_BYTES,
    CompiledQuery,
    MaskedOutput,
    ParsedQuery,
    Predicate,
    QueryColumn,
    QueryTable,
    SqlError,
    columns_hint,
    view_name,
)
from core.sql.predicates import partition_predicates
from schemas.column_types import ColumnKind, ColumnType

__all__ = [
    "MAX_SQL_BYTES",
    "CompiledQuery",
    "MaskedOutput",
    "ParsedQuery",
    "Predicate",
    "QueryColumn",
    "QueryTable",
    "SqlError",
    "compile_query",
    "parse_query",
    "partition_predicates",
    "view_name",
]

_TYPES: dict[ColumnKind, str] = {
    ColumnKind.STRING: "VARCHAR",
    ColumnKind.BOOLEAN: "BOOLEAN",
    ColumnKind.INT: "INT",
    ColumnKind.LONG: "BIGINT",
    ColumnKind.DOUBLE: "DOUBLE",
    ColumnKind.DATE: "DATE",
    ColumnKind.TIMESTAMP: "TIMESTAMP",
    ColumnKind.TIMESTAMPTZ: "TIMESTAMP WITH TIME ZONE",
    ColumnKind.STRING_LIST: "ARRAY(VARCHAR)",
    ColumnKind.JSON: "VARCHAR",
}
_COLUMN_ERROR = re.compile(
    r"Column '([^']*)' could not be resolved(?: for table: '([^']*)')?|Unknown column: (\S+)"
)


def _position(sql: str, offset: int) -> tuple[int, int]:
    before = sql[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _parse_error(sql: str, exc: SqlglotError) -> SqlError:
    hint = "Check the SQL near that position"
    if isinstance(exc, ParseError) and exc.errors:
        error = exc.errors[0]
        description = str(error.get("description") or "invalid syntax")
        return SqlError(
            "PARSE_ERROR",
            f"Syntax error at line {error.get('line')}, column {error.get('col')}: {description}",
            hint,
        )
    if isinstance(exc, TokenError):
        match = re.search(r"Error tokenizing '(.*)'", str(exc), re.S)
        found = sql.find(match.group(1)) if match else -1
        line, col = _position(sql, found + len(match.group(1)) if match and found >= 0 else len(sql))
        return SqlError(
            "PARSE_ERROR",
            f"Syntax error at line {line}, column {col}: unterminated string or quoted name",
            "Close every quote",
        )
    return SqlError("PARSE_ERROR", f"Syntax error: {str(exc).splitlines()[0][:300]}", hint)


def parse_query(sql: str) -> ParsedQuery:
    """Parse and check one caller query (no table or column resolution yet)."""
    if len(sql.encode("utf-8")) > MAX_SQL_BYTES:
        raise SqlError("PARSE_ERROR", "SQL is larger than 100 KB", "Shorten the query")
    if not sql.strip():
        raise SqlError("PARSE_ERROR", "SQL is empty", "Send one SELECT statement")
    try:
        statements = [s for s in sqlglot.parse(sql, read="trino") if s is not None]
    except SqlglotError as exc:
        raise _parse_error(sql, exc) from None
    except RecursionError:
        raise SqlError("PARSE_ERROR", "SQL is nested too deeply", "Simplify the query") from None
    if not statements:
        raise SqlError("PARSE_ERROR", "SQL holds no statement", "Send one SELECT statement")
    if len(statements) > 1:
        raise SqlError(
            "FORBIDDEN_CONSTRUCT", "Only one statement is allowed", "Send one SELECT statement per query"
        )
    tree = statements[0]
    error = statement_error(tree)
    if error is not None:
        raise error
    check_tree(tree)
    names: list[str] = []
    for table in sorted(real_tables(tree), key=lambda t: int(t.this.meta.get("start", 0))):
        name = table.name.lower()
        if name not in names:
            names.append(name)
    return ParsedQuery(tree, tuple(names))


def _type_sql(column_type: ColumnType) -> str:
    if column_type.kind is ColumnKind.DECIMAL:
        return f"DECIMAL({column_type.precision}, {column_type.scale})"
    return _TYPES[column_type.kind]


def _column_error(exc: OptimizeError, tree: exp.Expr, tables: Mapping[str, QueryTable]) -> SqlError:
    match = _COLUMN_ERROR.search(str(exc))
    if match is None:
        return SqlError("UNKNOWN_COLUMN", f"A column cannot be resolved: {str(exc)[:300]}", None)
    name = (match.group(1) or match.group(3) or "").lower()
    qualifier = (match.group(2) or "").lower()
    if not qualifier:
        written = next((c for c in tree.find_all(exp.Column) if c.name.lower() == name and c.table), None)
        qualifier = written.table.lower() if written is not None else ""
    owners = [t for t in tables.values() if t.column(name) is not None]
    if not qualifier and len(owners) > 1:
        choices = ", ".join(f"{t.sql_name}.{name}" for t in owners)
        return SqlError(
            "UNKNOWN_COLUMN", f'Column "{name}" is ambiguous', f"Qualify it with its table: {choices}"
        )
    aliases = {t.alias_or_name.lower(): t.name.lower() for t in real_tables(tree)}
    table = aliases.get(qualifier) if qualifier else (next(iter(tables)) if len(tables) == 1 else None)
    shown = f"{qualifier}.{name}" if qualifier else name
    known = tables.get(table) if table is not None else None
    message = f'Column "{shown}" does not exist' + (f' in table "{table}"' if known is not None else "")
    listed = [known] if known is not None else list(tables.values())
    return SqlError("UNKNOWN_COLUMN", message, columns_hint(listed))


def _wrap_values(tree: exp.Values) -> exp.Expr:
    first = tree.expressions[0] if tree.expressions else None
    width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
    alias = exp.TableAlias(
        this=exp.to_identifier("_values"), columns=[exp.to_identifier(f"_col_{i}") for i in range(width)]
    )
    tree.set("alias", alias)
    return exp.select("*").from_(tree)


def compile_query(parsed: ParsedQuery, tables: Mapping[str, QueryTable]) -> CompiledQuery:
    """Resolve ``parsed`` against the caller's tables and write it as DuckDB SQL over the views."""
    for name in parsed.table_names:
        if name not in tables:
            raise SqlError("UNKNOWN_TABLE", f'Table "{name}" does not exist or you cannot read it')
    used = {name: tables[name] for name in parsed.table_names}
    schema: dict[str, object] = {
        name: {c.name: _type_sql(c.type) for c in t.columns} for name, t in used.items()
    }
    tree = parsed.tree.copy()
    if isinstance(tree, exp.Values):
        tree = _wrap_values(tree)
    try:
        tree = qualify(tree, schema=schema, dialect="trino", validate_qualify_columns=True, identify=True)
        tree = annotate_types(tree, schema=schema, dialect="trino")
    except OptimizeError as exc:
        raise _column_error(exc, parsed.tree, used) from None
    except SqlglotError as exc:
        raise SqlError("PARSE_ERROR", f"The query cannot be resolved: {str(exc)[:300]}", None) from None
    if not isinstance(tree, exp.Query):
        raise SqlError("FORBIDDEN_CONSTRUCT", "Only a query can be run", "Send one SELECT statement")
    masked = masked_outputs(tree, used)
    carries_json = json_outputs(tree, used)
    translate(tree)
    views = {name: view_name(name) for name in parsed.table_names}
    for table in list(tree.find_all(exp.Table)):
        if is_cte_reference(table):
            continue
        name = table.name.lower()
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name, quoted=True)))
        table.set("this", exp.to_identifier(views[name], quoted=True))
    output_names = tuple(tree.named_selects)
    sql = tree.sql(dialect="duckdb", identify=True, comments=False)
    _recheck(sql)
    return CompiledQuery(sql, views, output_names, masked, parsed.table_names, carries_json)


def _recheck(sql: str) -> None:
    """The written SQL must read back as one query whose FROM items are names or UNNEST."""
    statements = sqlglot.parse(sql, read="duckdb")
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise SqlError("FORBIDDEN_CONSTRUCT", "The query cannot be run safely", None)
    for table in statements[0].find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier) or table.args.get("db") or table.args.get("catalog"):
            raise SqlError("FORBIDDEN_CONSTRUCT", "The query cannot be run safely", None)
