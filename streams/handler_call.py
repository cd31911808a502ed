"""The one handler call that a webhook delivery attempt and a scheduled run both make: a tool or agent at the
version its stored config picks now, or an svcdb operation on a table. Each caller builds its own request
body (the interface fixes them, and they differ); the lookup, the invocation and the wait for an unreachable
metadata database are the same for both."""

from __future__ import annotations

from functools import partial
from typing import Any

from schemas.deliveries import HandlerOutcome
from streams.runtime import HandlerRuntime, HandlerUnavailable


async def invoke_handler(
    runtime: HandlerRuntime,
    *,
    company_id: str,
    kind: str,
    resource_id: str,
    stored_version: Any,
    label: str,
    request: dict[str, Any],
    timeout_seconds: float,
    traceparent: str | None = None,
) -> HandlerOutcome:
    """Call the ``kind`` handler ``resource_id`` with ``request``; a handler that is gone, or has no version
    ``stored_version`` picks, is a final failure named by ``label``. The version is resolved at every call,
    so a config without a versionNumber follows what is published now, and ``request["version"]`` (and so
    the history's copy of the request) says which version ran."""
    try:
        version = await runtime.handler_version(company_id, resource_id, kind, stored_version, label)
    except HandlerUnavailable as exc:
        return HandlerOutcome(ok=False, error=str(exc), retryable=False)
    request["version"] = version.resolved().model_dump(mode="json", by_alias=True)
    return await runtime.invoker.invoke(version.endpoint, request, timeout_seconds, traceparent)


async def run_svcdb(
    runtime: HandlerRuntime, company_id: str, write_id: str, operation: dict[str, Any], timeout_seconds: float
) -> HandlerOutcome | None:
    """The svcdb operation's outcome, or None when its ``targetTableId`` does not exist in the company.
    Waits out an unreachable database: safe to repeat, since ``write_id`` is the write's idempotency key."""
    run = partial(
        runtime.svcdb.run,
        company_id=company_id,
        table_id=target_table(operation),
        write_id=write_id,
        operation=operation,
        limit_seconds=timeout_seconds,
    )
    return await runtime.until_db(run, "svcdb operation")


def target_table(operation: dict[str, Any]) -> str:
    return str(operation.get("targetTableId"))


def table_missing(operation: dict[str, Any]) -> str:
    """The error of an svcdb operation whose table does not exist."""
    return f"Target table {target_table(operation)} not found"
