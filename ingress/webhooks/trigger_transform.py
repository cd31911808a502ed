"""The trigger's transform helpers: JSONPATH mappings compiled once per cached webhook row, and mappings
beyond plain paths evaluated in the script sandbox."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from core.lru import Lru
from core.webhooks.transform import CompiledMappings, TransformError, compile_jsonpath_mappings
from sinks.db.webhooks.deliveries import TriggerTarget
from sinks.scripting.workers import TaskBudget, TaskBudgetExceeded, TaskFailed, default_pool

# Compiled jsonPathMappings per cached target (id -> the target and its mappings): compiling checks every
# expression against the save-time limits again, which cost more than evaluating them. A target whose webhook
# changed is a new object (ingress/webhooks/trigger_targets.py), so it compiles afresh.
_COMPILED: Lru[int, tuple[TriggerTarget, CompiledMappings]] = Lru(1024)


def compiled_mappings(target: TriggerTarget, mappings: dict[str, str]) -> CompiledMappings:
    cached = _COMPILED.get(id(target))
    if cached is not None and cached[0] is target:
        return cached[1]
    compiled = compile_jsonpath_mappings(mappings)  # a bad config raises here, every time, as before
    _COMPILED.put(id(target), (target, compiled))
    return compiled


async def jsonpath_in_sandbox(
    cpu_ms: int,
    tenant: str,
    mappings: dict[str, str],
    body: str,
    query: dict[str, str],
    content_type: str | None,
) -> dict[str, str]:
    """Evaluate mappings that are more than plain paths in a sandbox worker, under the tenant's share of the
    workers and a CPU budget of ``cpu_ms``; raises TransformError or SandboxBusy."""
    payload = {"mappings": mappings, "body": body, "queryParams": query, "contentType": content_type}
    try:
        result = await run_in_threadpool(
            default_pool().run_task,
            "jsonpath",
            payload,
            tenant=tenant,
            budget=TaskBudget(cpu_ms=cpu_ms, wall_ms=4 * cpu_ms + 2000),
        )
    except TaskBudgetExceeded:
        raise TransformError(
            f"JSONPath evaluation exceeded its CPU budget of {cpu_ms} ms; use plainer paths."
        ) from None
    except TaskFailed as exc:
        raise TransformError(f"JSONPath evaluation failed: {exc}.") from None
    if "error" in result:
        raise TransformError(str(result["error"]))
    return dict(result["variables"])
