"""Masked columns in a qualified query: where they may be used, and which outputs carry them.

A masked column is stored encrypted, so its stored value means nothing to SQL. It may only be

- selected bare (optionally renamed) by the query, a derived table or a CTE, in a SELECT without DISTINCT
  that is not a branch of a set operation and not a subquery used as a value (IN, EXISTS, scalar);
- counted with ``count(col)`` (not DISTINCT);
- tested with ``col IS NULL`` / ``col IS NOT NULL``.

A column of a derived table or CTE that selects a masked column bare carries it, and the same rules apply to
it. Every other use (comparisons, joins, grouping, ordering, window partitions, functions, casts) is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, ScopeType, build_scope, walk_in_scope

from core.sql.model import MaskedOutput, QueryColumn, QueryTable, SqlError, columns_hint
from schemas.column_types import ColumnKind

_PROJECTING_SCOPES = (ScopeType.ROOT, ScopeType.DERIVED_TABLE, ScopeType.CTE)


def _refused(origin: MaskedOutput) -> SqlError:
    return SqlError(
        "FORBIDDEN_CONSTRUCT",
        f'Column "{origin.column}" of table "{origin.table}" is masked and cannot be used this way',
        f'Column "{origin.column}" is masked: it can only be selected, counted or tested with IS NULL',
    )


def _in_set_operation(node: exp.Expr) -> bool:
    parent = node.parent
    while isinstance(parent, exp.Subquery):
        parent = parent.parent
    return isinstance(parent, exp.SetOperation)


def _unwrap(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Alias | exp.Paren):
        node = node.this
    return node


def _is_masked(column: QueryColumn) -> bool:
    return column.masked


def _is_json(column: QueryColumn) -> bool:
    return column.type.kind is ColumnKind.JSON


class _Projections:
    """Each SELECT's projections by output name and its output names, built once per SELECT: sqlglot builds
    ``named_selects`` afresh on every call, and a lookup per column would make wide queries quadratic."""

    def __init__(self) -> None:
        self._by_name: dict[int, dict[str, list[exp.Expr]]] = {}
        self._names: dict[int, frozenset[str]] = {}

    def named(self, select: exp.Select, name: str) -> list[exp.Expr]:
        index = self._by_name.get(id(select))
        if index is None:
            index = {}
            for projection in select.expressions:
                index.setdefault(projection.alias_or_name, []).append(projection)
            self._by_name[id(select)] = index
        return index.get(name, [])

    def names(self, query: exp.Query) -> frozenset[str]:
        names = self._names.get(id(query))
        if names is None:
            names = self._names[id(query)] = frozenset(query.named_selects)
        return names


class _Lineage:
    """Which table column (of those ``carries`` selects) a column carries unchanged."""

    def __init__(
        self, tables: Mapping[str, QueryTable], carries: Callable[[QueryColumn], bool] = _is_masked
    ) -> None:
        self.tables = tables
        self.carries = carries
        self.memo: dict[tuple[int, str], MaskedOutput | None] = {}
        self.projections = _Projections()

    def column(self, scope: Scope, column: exp.Column) -> MaskedOutput | None:
        """The (masked) table column whose stored value ``column`` carries, if any."""
        if not column.table:
            # An ORDER BY reference to an output alias of the same SELECT.
            select = scope.expression
            if isinstance(select, exp.Select):
                for projection in self.projections.named(select, column.name):
                    if _unwrap(projection) is not column:
                        return self.expression(scope, projection)
            return None
        current: Scope | None = scope
        while current is not None:
            source = current.sources.get(column.table)
            if isinstance(source, exp.Table):
                table = self.tables.get(source.name)
                found = table.column(column.name) if table is not None else None
                return MaskedOutput(source.name, column.name) if found and self.carries(found) else None
            if isinstance(source, Scope):
                return self.output(source, column.name)
            current = current.parent
        return None

    def expression(self, scope: Scope, node: exp.Expr) -> MaskedOutput | None:
        target = _unwrap(node)
        if isinstance(target, exp.Column) and target.table:
            return self.column(scope, target)
        return None

    def output(self, scope: Scope, name: str) -> MaskedOutput | None:
        key = (id(scope), name)
        if key not in self.memo:
            self.memo[key] = None
            select = scope.expression
            if isinstance(select, exp.Select):
                named = self.projections.named(select, name)
                if named:
                    self.memo[key] = self.expression(scope, named[0])
        return self.memo[key]


def _check_resolved(
    scope: Scope, column: exp.Column, tables: Mapping[str, QueryTable], projections: _Projections
) -> None:
    """A column must name a visible column of its source, or (unqualified) an output alias of its SELECT."""
    known = True
    if column.table:
        current: Scope | None = scope
        source: exp.Table | Scope | None = None
        while current is not None and source is None:
            source = current.sources.get(column.table)
            current = current.parent
        if isinstance(source, exp.Table):
            table = tables.get(source.name)
            known = table is not None and table.column(column.name) is not None
        elif isinstance(source, Scope):
            if isinstance(source.expression, exp.Query) and "*" not in projections.names(source.expression):
                known = column.name in projections.names(source.expression)
        else:
            known = False
    else:
        select = scope.expression
        known = isinstance(select, exp.Query) and column.name in projections.names(select)
    if not known:
        raise SqlError(
            "UNKNOWN_COLUMN", f'Column "{column.name}" does not exist', columns_hint(list(tables.values()))
        )


def _check_use(scope: Scope, column: exp.Column, origin: MaskedOutput) -> None:
    node: exp.Expr = column
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    if isinstance(parent, exp.Count) and node.arg_key == "this":
        return
    if isinstance(parent, exp.Is) and node.arg_key == "this" and isinstance(parent.expression, exp.Null):
        return
    if isinstance(parent, exp.Alias) and parent.parent is scope.expression:
        node, parent = parent, parent.parent
    select = scope.expression
    if (
        parent is select
        and isinstance(select, exp.Select)
        and node.arg_key == "expressions"
        and scope.scope_type in _PROJECTING_SCOPES
        and not select.args.get("distinct")
        and not _in_set_operation(select)
    ):
        return
    raise _refused(origin)


def masked_outputs(tree: exp.Query, tables: Mapping[str, QueryTable]) -> tuple[MaskedOutput | None, ...]:
    """Check that every column of ``tree`` (qualified, stars expanded) resolves and every use of a masked
    column is allowed; return, per output column, the masked column it carries unchanged."""
    root = build_scope(tree)
    if root is None:
        return tuple(None for _ in tree.named_selects)
    lineage = _Lineage(tables)
    for scope in root.traverse():
        for node in walk_in_scope(scope.expression):
            if isinstance(node, exp.Column):
                _check_resolved(scope, node, tables, lineage.projections)
                origin = lineage.column(scope, node)
                if origin is not None:
                    _check_use(scope, node, origin)
    if not isinstance(tree, exp.Select):
        return tuple(None for _ in tree.named_selects)
    return tuple(lineage.expression(root, projection) for projection in tree.expressions)


def json_outputs(tree: exp.Query, tables: Mapping[str, QueryTable]) -> tuple[bool, ...]:
    """Per output column: does it carry a JSON column unchanged (selected bare, through derived tables and
    CTEs)? Those come back as the JSON value; anything computed from one is the string DuckDB returns."""
    root = build_scope(tree)
    if root is None or not isinstance(tree, exp.Select):
        return tuple(False for _ in tree.named_selects)
    lineage = _Lineage(tables, carries=_is_json)
    return tuple(lineage.expression(root, projection) is not None for projection in tree.expressions)
