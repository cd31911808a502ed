"""Simple predicates on each table reference of a query, for partition pruning in scan estimates.

For every occurrence of a real table, the conjuncts that must hold for every row the query needs from that
occurrence: ``column op literal`` (op one of = != < <= > >=), ``column BETWEEN a AND b`` and
``column IN (literals)``, taken from the WHERE of the SELECT whose FROM or JOIN names the table, and from the
ON of an inner join (or the ON of an outer join for its null-supplying side). OR-ed and other conditions
are dropped: fewer predicates only make an estimate larger, never wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from core.sql.as_of import ref_key
from core.sql.checks import real_tables
from core.sql.model import ParsedQuery, Predicate, QueryTable
from schemas.column_types import ColumnKind

_OPS: dict[type[exp.Expr], str] = {
    exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=",
}  # fmt: skip
_FLIPPED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NO_VALUE = object()


def _conjuncts(condition: exp.Expr | None) -> Iterator[exp.Expr]:
    if condition is None:
        return
    while isinstance(condition, exp.Paren):
        condition = condition.this
    if isinstance(condition, exp.And):
        yield from _conjuncts(condition.this)
        yield from _conjuncts(condition.expression)
    else:
        yield condition


def _timestamp(text: str, aware: bool) -> datetime:
    cleaned = text.strip().replace(" UTC", "+00:00").replace("Z", "+00:00")
    value = datetime.fromisoformat(cleaned)
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC) if aware else value
    return value.astimezone(UTC) if aware else value.astimezone(UTC).replace(tzinfo=None)


def _value(node: exp.Expr, kind: ColumnKind) -> object:
    """The Python value of a literal, or ``_NO_VALUE`` when ``node`` is not one."""
    while isinstance(node, exp.Paren):
        node = node.this
    try:
        if isinstance(node, exp.Neg):
            inner = _value(node.this, kind)
            return -inner if isinstance(inner, int | float | Decimal) else _NO_VALUE
        if isinstance(node, exp.Boolean):
            return bool(node.this)
        if isinstance(node, exp.Literal):
            text = str(node.this)
            if node.is_string:
                return text
            if any(c in text for c in "eE"):
                return float(text)
            return int(text) if text.lstrip("-").isdigit() else Decimal(text)
        if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
            text = str(node.this.this)
            if node.to.is_type(exp.DataType.Type.DATE):
                return date.fromisoformat(text.strip())
            if node.to.is_type(exp.DataType.Type.TIMESTAMPTZ):
                return _timestamp(text, aware=True)
            if node.to.is_type(exp.DataType.Type.TIMESTAMP):
                return _timestamp(text, aware=kind is ColumnKind.TIMESTAMPTZ)
    except (ValueError, InvalidOperation):
        return _NO_VALUE
    return _NO_VALUE


class _Occurrence:
    def __init__(self, table: exp.Table, shape: QueryTable, select: exp.Select) -> None:
        self.alias = table.alias_or_name.lower()
        self.shape = shape
        self.select = select
        holders = [select.args.get("from_"), *(select.args.get("joins") or [])]
        self.sources = [h.this.alias_or_name.lower() for h in holders if isinstance(h, exp.From | exp.Join)]

    def column_kind(self, node: exp.Expr) -> ColumnKind | None:
        """The column's kind when ``node`` is a column of this occurrence."""
        if not isinstance(node, exp.Column) or node.args.get("db"):
            return None
        name = node.name.lower()
        column = self.shape.column(name)
        if column is None or column.masked:
            return None
        if node.table:
            return column.type.kind if node.table.lower() == self.alias else None
        return column.type.kind if self.sources == [self.alias] else None

    def predicates(self, condition: exp.Expr) -> list[Predicate]:
        found: list[Predicate] = []
        for term in _conjuncts(condition):
            if type(term) in _OPS:
                op = _OPS[type(term)]
                for column, other, this_op in (
                    (term.this, term.expression, op),
                    (term.expression, term.this, _FLIPPED[op]),
                ):
                    kind = self.column_kind(column)
                    value = _value(other, kind) if kind is not None else _NO_VALUE
                    if kind is not None and value is not _NO_VALUE:
                        found.append((column.name.lower(), this_op, value))
                        break
            elif isinstance(term, exp.Between) and (kind := self.column_kind(term.this)) is not None:
                low, high = _value(term.args["low"], kind), _value(term.args["high"], kind)
                if low is not _NO_VALUE:
                    found.append((term.this.name.lower(), ">=", low))
                if high is not _NO_VALUE:
                    found.append((term.this.name.lower(), "<=", high))
            elif isinstance(term, exp.In) and not term.args.get("query") and not term.args.get("unnest"):
                kind = self.column_kind(term.this)
                values = [_value(v, kind) for v in term.expressions] if kind is not None else []
                if values and all(v is not _NO_VALUE for v in values):
                    found.append((term.this.name.lower(), "in", values))
        return found


def _usable_on(join: exp.Join, table: exp.Table) -> bool:
    """Whether ``join``'s ON conditions restrict the rows needed from ``table``."""
    side = str(join.args.get("side") or "").upper()
    if join.this is table:
        return side in ("", "LEFT")
    return side in ("", "RIGHT")


def partition_predicates(
    parsed: ParsedQuery, tables: Mapping[str, QueryTable]
) -> dict[str, list[list[Predicate]]]:
    """Per reading of a table (``TableRef.key``), one list of conjuncts per occurrence (the caller ORs the
    occurrences)."""
    result: dict[str, list[list[Predicate]]] = {ref.key: [] for ref in parsed.refs}
    for table in real_tables(parsed.tree):
        name = ref_key(table)
        shape = tables.get(name)
        if shape is None:
            continue
        holder = table.parent
        select = holder.parent if isinstance(holder, exp.From | exp.Join) else None
        if not isinstance(select, exp.Select):
            result.setdefault(name, []).append([])
            continue
        occurrence = _Occurrence(table, shape, select)
        where = select.args.get("where")
        found = occurrence.predicates(where.this) if isinstance(where, exp.Where) else []
        joins: list[exp.Join] = select.args.get("joins") or []
        position = next((i for i, j in enumerate(joins) if j.this is table), -1)
        for index, join in enumerate(joins):
            on = join.args.get("on")
            # A later join's ON restricts earlier tables when inner or right; this join's, when inner or left.
            if on is None or (index < position) or not _usable_on(join, table):
                continue
            found.extend(occurrence.predicates(on))
        result.setdefault(name, []).append(found)
    return result
