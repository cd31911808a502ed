"""The CPU work of an append-rows call: parse the body, check and convert the rows, encode what is accepted.

The accepted rows leave here in the form the table writer commits (Arrow, masked columns encrypted), so
the worker only decodes them. Nothing here does I/O: the route decides where the work runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pydantic_core
from pydantic import ValidationError

from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.table_specs import definitions_of
from ingress.errors import ApiError, messages_of
from schemas.column_types import ColumnDef
from schemas.tables import AppendRowsRequest, RowError
from sinks.iceberg.convert import rows_to_arrow, to_ipc

MAX_ROWS = 10_000
MAX_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class ConvertedAppend:
    accepted: int
    rows: bytes  # Arrow IPC of the accepted rows (convert.to_ipc); empty when none was accepted
    errors: list[RowError]


def check_size(raw: bytes) -> None:
    if len(raw) > MAX_BYTES:
        # A byte limit, not a row count: the same code as any body over the request limit.
        raise analytics_error(
            "REQUEST_TOO_LARGE", f"An append carries at most {MAX_BYTES} bytes", "Split the rows"
        )


def check_count(body: AppendRowsRequest) -> None:
    if len(body.rows) > MAX_ROWS:
        raise analytics_error("ROW_LIMIT", f"An append carries at most {MAX_ROWS} rows", "Split the rows")


def parse_body(raw: bytes) -> AppendRowsRequest:
    """The request body; a 400 with pydantic's messages when it is not one.

    pydantic's own JSON parser, caching only the keys, then validation of the parsed values: a third
    cheaper than `model_validate_json`, which also interns every string value, and the values are the
    same (integers of any size stay exact, NaN and infinities read as before). A body that fails either
    step goes through `model_validate_json`, whose JSON-mode messages the callers see.
    """
    try:
        return AppendRowsRequest.model_validate(pydantic_core.from_json(raw, cache_strings="keys"))
    except ValueError:  # not JSON, or a ValidationError (a ValueError) worded for Python input
        pass
    try:
        return AppendRowsRequest.model_validate_json(raw)
    except ValidationError as exc:
        raise ApiError(400, *messages_of(exc)) from exc


@lru_cache(maxsize=512)
def column_definitions(columns_json: str) -> tuple[ColumnDef, ...]:
    """The table's columns, keyed by the registry's exact text: a schema change is a new key, never stale."""
    return tuple(definitions_of(json.loads(columns_json)))


def convert(
    columns: Sequence[ColumnDef], rows: Sequence[Any], load_id: str, encrypt: Callable[[str], str]
) -> ConvertedAppend:
    converted = rows_to_arrow(columns, rows, load_id=load_id, first_record_id=0, encrypt=encrypt)
    errors = [RowError(index=e.index, message=e.message) for e in converted.errors]
    accepted = converted.table.num_rows
    stored = to_ipc(converted.table) if accepted else b""
    return ConvertedAppend(accepted=accepted, rows=stored, errors=errors)
