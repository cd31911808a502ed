"""Effective read policies of analytics tables, and when one is at least as broad as another.

A caller's effective policy on one table is what its grant lets it read there: a row filter (none: every
row), hidden columns, and the masked columns whose plaintext it may reveal. A query job stores its runner's
policy on every table it reads when it is planned; its output (rows, columns, counts, SQL text) is then
what that policy let through. Another caller, or the runner later, may read that output only if their own
current policy is at least as broad on every one of those tables:

- row filter: none, or the runner's own filter (compared normalized). Any other filter, even one that
  looks wider, is narrower: whether one predicate implies another is not decided here;
- hidden columns: a subset of the runner's (a column hidden from the reader but not from the runner may
  have shaped the output: selected, filtered on, or counted);
- reveal rights: a superset of the runner's wherever the output carries revealed (plaintext) values.

Pure logic over plain data: the ingress computes the policies from grants and asks this module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot.errors import ParseError, TokenError

POLICY_VERSION = 1


@dataclass(frozen=True)
class TablePolicy:
    """One caller's effective policy on one table. The default is a company admin's: everything."""

    row_filter: str | None = None
    hidden_columns: frozenset[str] = field(default_factory=frozenset)
    revealable: frozenset[str] = field(default_factory=frozenset)


# By table id.
Policy = Mapping[str, TablePolicy]


def normalized_row_filter(text: str | None) -> str | None:
    """One spelling of a row filter (Trino dialect), so that only a real difference counts as one."""
    if text is None or not text.strip():
        return None
    try:
        return str(sqlglot.parse_one(text, read="trino").sql(dialect="trino"))
    except (ParseError, TokenError):
        # Grants hold checked filters; text that no longer parses is compared by its words alone.
        return " ".join(text.split())


def table_shortfall(
    reader: TablePolicy | None, runner: TablePolicy, revealed: frozenset[str] = frozenset()
) -> str | None:
    """Why ``reader`` is narrower than ``runner`` on one table, or None when it is at least as broad.
    ``reader`` None: the reader cannot read the table at all. ``revealed``: the masked columns whose
    plaintext the output carries."""
    if reader is None:
        return "you have no READ grant on it"
    mine = normalized_row_filter(reader.row_filter)
    if mine is not None and mine != normalized_row_filter(runner.row_filter):
        return "your row filter differs from the one the job ran with"
    hidden = sorted(reader.hidden_columns - runner.hidden_columns)
    if hidden:
        return f"columns hidden from you: {', '.join(hidden)}"
    unrevealable = sorted(revealed - reader.revealable)
    if unrevealable:
        return f"you may not reveal: {', '.join(unrevealable)}"
    return None


def shortfalls(
    reader: Mapping[str, TablePolicy | None],
    runner: Policy,
    revealed: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, str]:
    """Per table id of ``runner`` where ``reader`` is narrower: why. Empty when the reader may read the
    output. A table missing from ``reader`` counts as unreadable."""
    found: dict[str, str] = {}
    for table_id, theirs in runner.items():
        why = table_shortfall(reader.get(table_id), theirs, (revealed or {}).get(table_id, frozenset()))
        if why is not None:
            found[table_id] = why
    return found


def at_least_as_broad(
    reader: Mapping[str, TablePolicy | None],
    runner: Policy,
    revealed: Mapping[str, frozenset[str]] | None = None,
) -> bool:
    return not shortfalls(reader, runner, revealed)


def dumps(policy: Policy) -> str:
    """The JSON text stored with a job."""
    return json.dumps(
        {
            "v": POLICY_VERSION,
            "tables": {
                table_id: {
                    "rowFilter": normalized_row_filter(entry.row_filter),
                    "hiddenColumns": sorted(entry.hidden_columns),
                    "revealable": sorted(entry.revealable),
                }
                for table_id, entry in policy.items()
            },
        },
        separators=(",", ":"),
        sort_keys=True,
    )


def loads(text: str) -> dict[str, TablePolicy]:
    """The policy ``dumps`` stored; ValueError for anything else (a reader is then refused)."""
    try:
        raw: Any = json.loads(text)
        if not isinstance(raw, dict) or raw.get("v") != POLICY_VERSION or not isinstance(raw["tables"], dict):
            raise ValueError("not a stored policy")
        return {
            str(table_id): TablePolicy(
                row_filter=_text_or_none(entry["rowFilter"]),
                hidden_columns=_names(entry["hiddenColumns"]),
                revealable=_names(entry["revealable"]),
            )
            for table_id, entry in raw["tables"].items()
        }
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a stored policy: {exc}") from exc


def _text_or_none(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError("rowFilter must be text or null")


def _names(value: Any) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("column lists must be arrays of text")
    return frozenset(value)
