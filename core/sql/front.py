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
from sqlglot.dialects import duckdb as _duckdb  # noqa: F401 - loaded now, not in the first query's CPU budget
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema

from core.sql import tree_budget
from core.sql.as_of import ref_key, table_ref
from core.sql.budget import check_text, too_deep
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
    TableRef,
    columns_hint,
    view_name,
)
from core.sql.parse_errors import parse_error, user_text
from core.sql.predicates import partition_predicates as _partition_predicates
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
    "TableRef",
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


def parse_query(sql: str) -> ParsedQuery:
    """Parse and check one caller query (no table or column resolution yet). Over a budget of
    ``core.sql.budget`` (checked before sqlglot reads the text) or ``core.sql.tree_budget``: PARSE_ERROR."""
    measured = check_text(sql)
    if not sql.strip():
        raise SqlError("PARSE_ERROR", "SQL is empty", "Send one SELECT statement")
    try:
        return _parse_checked(sql, measured.tokens)
    except RecursionError:
        raise too_deep() from None


def _parse_checked(sql: str, tokens: int) -> ParsedQuery:
    try:
        statements = [s for s in sqlglot.parse(sql, read="trino") if s is not None]
    except SqlglotError as exc:
        raise parse_error(sql, exc) from None
    if not statements:
        raise SqlError("PARSE_ERROR", "SQL holds no statement", "Send one SELECT statement")
    if len(statements) > 1:
        raise SqlError(
            "FORBIDDEN_CONSTRUCT", "Only one statement is allowed", "Send one SELECT statement per query"
        )
    tree = statements[0]
    tree_budget.check_tree(tree)
    error = statement_error(tree)
    if error is not None:
        raise error
    check_tree(tree)
    names: list[str] = []
    refs: list[TableRef] = []
    for table in sorted(real_tables(tree), key=lambda t: int(t.this.meta.get("start", 0))):
        ref = table_ref(table)
        if ref.name not in names:
            names.append(ref.name)
        if ref not in refs:
            refs.append(ref)
    return ParsedQuery(tree, tuple(names), tokens, tuple(refs))


def _type_sql(column_type: ColumnType) -> str:
    if column_type.kind is ColumnKind.DECIMAL:
        return f"DECIMAL({column_type.precision}, {column_type.scale})"
    return _TYPES[column_type.kind]


def _column_error(exc: OptimizeError, tree: exp.Expr, tables: Mapping[str, QueryTable]) -> SqlError:
    match = _COLUMN_ERROR.search(str(exc))
    if match is None:
        return SqlError("UNKNOWN_COLUMN", f"A column cannot be resolved: {user_text(str(exc))}", None)
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
    aliases = {t.alias_or_name.lower(): ref_key(t) for t in real_tables(tree)}
    table = aliases.get(qualifier) if qualifier else (next(iter(tables)) if len(tables) == 1 else None)
    shown = f"{qualifier}.{name}" if qualifier else name
    known = tables.get(table) if table is not None else None
    message = f'Column "{shown}" does not exist' + (f' in table "{known.ref.label}"' if known else "")
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
    """Resolve ``parsed`` against the caller's tables (by ``TableRef.key``: a table read as of a snapshot has
    its own entry, with the columns it had then) and write it as DuckDB SQL over the views. A query whose
    ``*`` would expand past ``core.sql.tree_budget``'s limit is a PARSE_ERROR."""
    for ref in parsed.refs:
        if ref.key not in tables:
            raise SqlError("UNKNOWN_TABLE", f'Table "{ref.name}" does not exist or you cannot read it')
    used = {ref.key: tables[ref.key] for ref in parsed.refs}
    try:
        tree_budget.check_stars(parsed.tree, used, parsed.tokens)
        return _compile_checked(parsed, used)
    except RecursionError:
        raise too_deep() from None


def _compile_checked(parsed: ParsedQuery, used: Mapping[str, QueryTable]) -> CompiledQuery:
    schema: dict[str, object] = {
        name: {c.name: _type_sql(c.type) for c in t.columns} for name, t in used.items()
    }
    tree = parsed.tree.copy()
    if isinstance(tree, exp.Values):
        tree = _wrap_values(tree)
    _name_readings(tree)
    try:
        # One normalised schema for both passes: building it (every column name normalised) cost more
        # than qualifying an ordinary query, and each pass given a plain dict built its own.
        resolved = MappingSchema(schema, dialect="trino")
        tree = qualify(tree, schema=resolved, dialect="trino", validate_qualify_columns=True, identify=True)
        tree = annotate_types(tree, schema=resolved, dialect="trino")
    except OptimizeError as exc:
        raise _column_error(exc, parsed.tree, used) from None
    except SqlglotError as exc:
        raise SqlError("PARSE_ERROR", f"The query cannot be resolved: {user_text(str(exc))}", None) from None
    if not isinstance(tree, exp.Query):
        raise SqlError("FORBIDDEN_CONSTRUCT", "Only a query can be run", "Send one SELECT statement")
    masked = masked_outputs(tree, used)
    carries_json = json_outputs(tree, used)
    translate(tree)
    views = _view_names(parsed.refs)
    for table in list(tree.find_all(exp.Table)):
        if is_cte_reference(table):
            continue
        key = table.name.lower()
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(key, quoted=True)))
        table.set("this", exp.to_identifier(views[key], quoted=True))
    output_names = tuple(tree.named_selects)
    sql = tree.sql(dialect="duckdb", identify=True, comments=False, copy=False)  # the tree is not used again
    _recheck(sql)
    refs = tuple(ref.key for ref in parsed.refs)
    return CompiledQuery(sql, views, output_names, masked, parsed.table_names, carries_json, refs)


def _name_readings(tree: exp.Expr) -> None:
    """Name each table read as of a snapshot by its reading's key, aliased to the table's name, so that
    qualification resolves it against the columns it had then and ``t.col`` keeps working."""
    for table in list(real_tables(tree)):
        if not table.args.get("version"):
            continue
        ref = table_ref(table)
        table.set("version", None)
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(ref.name)))
        table.set("this", exp.to_identifier(ref.key, quoted=True))


def _view_names(refs: tuple[TableRef, ...]) -> dict[str, str]:
    """Each reading's view: ``t#svc`` for the table now, ``t@1#svc``, ``t@2#svc``... as of snapshots."""
    views: dict[str, str] = {}
    for ref in refs:
        if ref.as_of is None:
            views[ref.key] = view_name(ref.name)
        else:
            views[ref.key] = view_name(f"{ref.name}@{len(views) + 1}")
    return views


def partition_predicates(
    parsed: ParsedQuery, tables: Mapping[str, QueryTable]
) -> dict[str, list[list[Predicate]]]:
    """``core.sql.predicates.partition_predicates``; a tree too deep to walk is a PARSE_ERROR."""
    try:
        return _partition_predicates(parsed, tables)
    except RecursionError:
        raise too_deep() from None


def _recheck(sql: str) -> None:
    """The written SQL must read back as one query whose FROM items are names or UNNEST."""
    try:
        statements = sqlglot.parse(sql, read="duckdb")
    except SqlglotError:
        raise SqlError("FORBIDDEN_CONSTRUCT", "The query cannot be run safely", None) from None
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise SqlError("FORBIDDEN_CONSTRUCT", "The query cannot be run safely", None)
    for table in statements[0].find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier) or table.args.get("db") or table.args.get("catalog"):
            raise SqlError("FORBIDDEN_CONSTRUCT", "The query cannot be run safely", None)
