"""An upper bound of the bytes a query reads from one table: the sizes of the data files Iceberg's scan
planning keeps after partition and min/max pruning with the query's simple predicates on that table, in the
snapshot the query reads (the current one, or the one a time-travel clause names).

The predicates come from the SQL front (conjuncts that hold for every row read); anything that cannot be
turned into an Iceberg expression is dropped, which only makes the bound larger, never wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pyiceberg.expressions import (
    AlwaysTrue,
    And,
    BooleanExpression,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    LessThan,
    LessThanOrEqual,
    NotEqualTo,
)

log = logging.getLogger(__name__)
Predicate = tuple[str, str, object]

_OPERATORS: dict[str, Any] = {
    "=": EqualTo,
    "!=": NotEqualTo,
    "<": LessThan,
    "<=": LessThanOrEqual,
    ">": GreaterThan,
    ">=": GreaterThanOrEqual,
}


def _literal(value: object) -> Any:
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"no Iceberg literal for {type(value).__name__}")


def to_expression(predicates: Sequence[Predicate], columns: set[str]) -> BooleanExpression:
    expression: BooleanExpression = AlwaysTrue()
    for column, op, value in predicates:
        if column not in columns:
            continue
        try:
            if op == "in":
                if not isinstance(value, list | tuple) or not value:
                    continue
                term: BooleanExpression = In(term=column, literals={_literal(v) for v in value})
            elif op in _OPERATORS:
                term = _OPERATORS[op](column, _literal(value))
            else:
                continue
        except (TypeError, ValueError):
            continue
        expression = And(expression, term)
    return expression


def snapshot_schema(handle: Any, snapshot_id: int | None) -> Any:
    """The schema a reader of the snapshot sees: the snapshot's own (columns added later are not in it), the
    current one for the current snapshot; None when the table has no such snapshot."""
    snapshot = handle.current_snapshot() if snapshot_id is None else handle.snapshot_by_id(snapshot_id)
    if snapshot is None:
        return None
    if snapshot_id is None or snapshot.schema_id is None:
        return handle.schema()
    return handle.schemas().get(snapshot.schema_id, handle.schema())


def estimate_bytes(handle: Any, predicates: Sequence[Predicate], snapshot_id: int | None = None) -> int:
    """Bytes of the data files a scan with ``predicates`` would read from the snapshot ``snapshot_id`` (None:
    the current one)."""
    schema = snapshot_schema(handle, snapshot_id)
    if schema is None:
        return 0
    columns = {field.name for field in schema.fields}
    expression = to_expression(predicates, columns)
    try:
        tasks = handle.scan(row_filter=expression, snapshot_id=snapshot_id).plan_files()
    except (TypeError, ValueError) as exc:
        # A literal Iceberg cannot bind to the column's type: plan without the predicates.
        log.info("scan estimate without predicates", extra={"reason": str(exc)[:200]})
        tasks = handle.scan(snapshot_id=snapshot_id).plan_files()
    return int(sum(task.file.file_size_in_bytes for task in tasks))
