"""The result cache's key: what makes two query jobs' results the same (BigQuery's cached results).

A result is a function of the DuckDB SQL the worker runs, of what each view reads (table, snapshot, the
caller's visible columns and their types, row filter) and of the limits that cut the result off. The key is a
digest of exactly that plan, so:

- a caller with another effective policy (row filter, hidden columns, masking) has another plan and never
  meets another policy's result: the policy is part of the compiled plan, not compared afterwards;
- any commit to a referenced table is a new snapshot id, hence a new key, by construction;
- a schema change (a column added, or widened: the result's column types change, the snapshot does not) is a
  new key too, since the views' column names and types are part of it;
- a result cut off by ``maxRows`` (or the result-size limit) answers only the same limits.

Each view carries the snapshot it reads as planned (``ViewPlan.read_snapshot_id``: the time-travel snapshot,
or the table's current snapshot at planning). The worker reads the current snapshot when it runs and keeps the
job's key only when it read exactly those (``streams/analytics/jobs.py``), so a key always names the data its
result was computed from.

A query whose answer depends on the moment it runs (``current_date``, ``now()``…, in its SQL or in a row
filter) has no key: as in BigQuery, it is never answered from the cache.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from schemas.jobs import QueryPlan

KEY_VERSION = 2
"""Part of every key: a change to what a plan means (or to this digest) starts a new key space."""

# DuckDB spellings of the allowed functions whose value depends on when the query runs (sqlglot writes Trino's
# now() as CURRENT_TIMESTAMP). A quoted identifier or a string literal that looks like one only makes the
# query uncacheable, never wrongly cached.
_MOMENT = re.compile(
    r"(?<![\w\"])(current_date|current_timestamp|current_time|localtime|localtimestamp)(?![\w\"])"
    r"|(?<![\w\"])(now|today|random|uuid|gen_random_uuid|get_current_time|get_current_timestamp)\s*\(",
    re.IGNORECASE,
)


def depends_on_the_moment(sql: str) -> bool:
    """True when ``sql`` (DuckDB dialect) may answer differently at another moment on the same data."""
    return _MOMENT.search(sql) is not None


def key_material(plan: QueryPlan, reveal: bool, column_types: Sequence[Sequence[str]]) -> list[Any]:
    """Everything of ``plan`` that shapes its result, in a fixed order (the run-time limit does not: a job
    that succeeded computed the same rows whatever its limit). ``column_types``: per view, in the plan's
    order, the type of each column the caller sees (the plan names them only)."""
    return [
        KEY_VERSION,
        [list(types) for types in column_types],
        plan.sql,
        [
            [
                view.view,
                view.table_id,
                view.read_snapshot_id,
                view.snapshot_id,
                view.columns,
                view.row_filter,
                view.absent_columns,
            ]
            for view in plan.views
        ],
        [masked.model_dump(mode="json") for masked in plan.masked],
        plan.json_columns,
        plan.max_rows,
        plan.max_result_bytes,
        reveal,
    ]


def cache_key(plan: QueryPlan, reveal: bool, column_types: Sequence[Sequence[str]]) -> str | None:
    """SHA-256 (hex) of the plan's result-shaping parts; None when the query may not be cached."""
    texts = [plan.sql, *(view.row_filter or "" for view in plan.views)]
    if any(depends_on_the_moment(text) for text in texts):
        return None
    material = json.dumps(key_material(plan, reveal, column_types), separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()
