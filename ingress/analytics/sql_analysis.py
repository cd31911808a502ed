"""Where a caller's SQL is parsed and compiled: in a sandbox worker under a CPU budget (the default), or in
this process (``SVC_SQL_ANALYSIS_IN_SANDBOX=false``).

sqlglot is pure Python and holds the GIL while it works; the budgets of ``core.sql.budget`` bound its cost
for every query shape we know, and the worker's CPU budget (``SVC_SQL_ANALYSIS_CPU_MS``) bounds the rest, so
one company's SQL never stalls the ingress for the others. A company holds at most its share of the
workers. Results are cached by text (and, for compiling, by the tables exactly as the caller sees them);
a cache hit never goes to a worker. Refusals are not cached.

Answers: a refusal is the analytics error of its ``SqlError`` (400); over the CPU budget, 400 PARSE_ERROR;
the company's share of workers busy, 429 QUOTA with Retry-After; a worker that failed, 503 with Retry-After.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.lru import Lru
from core.sql import remote
from core.sql.budget import check_size, too_complex
from core.sql.front import (
    CompiledQuery,
    ParsedQuery,
    Predicate,
    QueryTable,
    TableRef,
    compile_query,
    parse_query,
    partition_predicates,
)
from ingress.errors import ApiError
from schemas.settings import Settings
from sinks.scripting.workers import SandboxBusy, TaskBudget, TaskBudgetExceeded, TaskFailed, default_pool

log = logging.getLogger(__name__)

Shapes = tuple[tuple[str, QueryTable], ...]
Compiled = tuple[CompiledQuery, dict[str, list[list[Predicate]]]]
_CACHE_SIZE = 256
_FAILED_RETRY_SECONDS = 1


@dataclass(frozen=True)
class SqlAnalysis:
    in_sandbox: bool = True
    cpu_ms: int = 2000

    @classmethod
    def of(cls, settings: Settings) -> SqlAnalysis:
        return cls(settings.sql_analysis_in_sandbox, settings.sql_analysis_cpu_ms)

    @property
    def budget(self) -> TaskBudget:
        # The wall-clock backstop leaves room for a niced worker on a busy machine; the CPU budget decides.
        return TaskBudget(cpu_ms=self.cpu_ms, wall_ms=4 * self.cpu_ms + 2000)


@lru_cache(maxsize=_CACHE_SIZE)
def _parsed(sql: str) -> ParsedQuery:
    """Parsing and checking depend on the text alone, so a repeated query (a dashboard's) is parsed once.
    Refusals are not cached (they raise). Nothing changes a parsed tree: compiling works on a copy."""
    return parse_query(sql)


@lru_cache(maxsize=_CACHE_SIZE)
def _compiled(sql: str, shapes: Shapes) -> Compiled:
    """The DuckDB SQL and partition predicates of ``sql`` over the tables exactly as the caller sees them
    (the shapes hold every visible column and its type, so a schema or grant change is a new key)."""
    parsed = _parsed(sql)
    tables = dict(shapes)
    return compile_query(parsed, tables), partition_predicates(parsed, tables)


_refs_in_sandbox: Lru[str, tuple[TableRef, ...]] = Lru(_CACHE_SIZE)
_compiled_in_sandbox: Lru[tuple[str, Shapes], Compiled] = Lru(_CACHE_SIZE)


def _run(kind: str, payload: dict[str, Any], tenant: str, analysis: SqlAnalysis) -> dict[str, Any]:
    """Run one SQL task in a sandbox worker; a refusal comes back as SqlError."""
    try:
        result: dict[str, Any] = default_pool().run_task(kind, payload, tenant=tenant, budget=analysis.budget)
    except SandboxBusy as busy:
        if busy.over_cpu:
            message = "This company has used its share of the SQL analysis CPU; retry shortly"
            hint = "Send fewer or simpler queries; a query already analysed is answered from the cache"
        elif busy.starved:
            message = "The SQL analysis is short of CPU; retry shortly"
            hint = "The service is busy; retry after the Retry-After interval"
        else:
            message = "Too many queries of this company are being analysed at once; retry shortly"
            hint = "Send fewer queries at once"
        raise ApiError(
            429,
            message,
            headers={"Retry-After": str(busy.retry_after)},
            body={"errorCode": "QUOTA", "errors": [message], "hint": hint},
        ) from None
    except TaskBudgetExceeded:
        raise too_complex(analysis.cpu_ms) from None
    except TaskFailed as exc:
        log.warning("sql analysis failed in the sandbox", extra={"task": kind, "error": str(exc)})
        raise ApiError(
            503,
            "The SQL analysis is unavailable; retry shortly",
            headers={"Retry-After": str(_FAILED_RETRY_SECONDS)},
        ) from None
    error = remote.decode_error(result)
    if error is not None:
        raise error
    return result


def table_refs(sql: str, tenant: str, analysis: SqlAnalysis) -> tuple[TableRef, ...]:
    """Each reading of a table ``sql`` makes (now, or as of a snapshot or a moment), in order of appearance;
    raises SqlError, or ApiError from the sandbox."""
    if not analysis.in_sandbox:
        return _parsed(sql).refs
    check_size(sql)  # the one check cheap enough to make here: a 10 MB body never goes to a worker

    def parse_remotely() -> tuple[TableRef, ...]:
        refs = _run("sql_parse", {"sql": sql}, tenant, analysis)["refs"]
        return tuple(remote.decode_ref(ref) for ref in refs)

    return _refs_in_sandbox.get_or_make(sql, parse_remotely)


def table_names(sql: str, tenant: str, analysis: SqlAnalysis) -> tuple[str, ...]:
    """The tables ``sql`` reads, each once, in order of appearance; raises like ``table_refs``."""
    return tuple(dict.fromkeys(ref.name for ref in table_refs(sql, tenant, analysis)))


def compiled(sql: str, shapes: Shapes, tenant: str, analysis: SqlAnalysis) -> Compiled:
    """``sql`` written for DuckDB over the caller's tables, and its partition predicates; raises like
    ``table_names``."""
    if not analysis.in_sandbox:
        return _compiled(sql, shapes)

    def compile_remotely() -> Compiled:
        payload = {"sql": sql, "tables": [remote.encode_table(table) for _, table in shapes]}
        result = _run("sql_compile", payload, tenant, analysis)
        return remote.decode_compiled(result["compiled"]), remote.decode_predicates(result["predicates"])

    return _compiled_in_sandbox.get_or_make((sql, shapes), compile_remotely)


def clear_caches() -> None:
    """Forget every cached analysis (tests that change where SQL is analysed)."""
    _parsed.cache_clear()
    _compiled.cache_clear()
    _refs_in_sandbox.clear()
    _compiled_in_sandbox.clear()
