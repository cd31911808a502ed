"""The trigger's transform helpers: JSONPATH mappings compiled once per cached webhook row, and mappings
beyond plain paths evaluated in the script sandbox."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from core.webhooks.transform import CompiledMappings, TransformError, compile_jsonpath_mappings
from ingress.webhooks.services import Services
from sinks.db.webhooks.deliveries import TriggerTarget
from sinks.scripting.workers import TaskBudget, TaskBudgetExceeded, TaskFailed, default_pool

# Compiled jsonPathMappings per cached target (id -> the target and its mappings): compiling checks every
# expression against the save-time limits again, which cost more than evaluating them. A target whose webhook
# changed is a new object (ingress/webhooks/trigger_targets.py), so it compiles afresh.
_COMPILED: dict[int, tuple[TriggerTarget, CompiledMappings]] = {}
_COMPILED_MAX = 1024


def compiled_mappings(target: TriggerTarget, mappings: dict[str, str]) -> CompiledMappings:
    cached = _COMPILED.get(id(target))
    if cached is not None and cached[0] is target:
        return cached[1]
    compiled = compile_jsonpath_mappings(mappings)  # a bad config raises here, every time, as before
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.clear()
    _COMPILED[id(target)] = (target, compiled)
    return compiled


async def jsonpath_in_sandbox(
    svc: Services,
    target: TriggerTarget,
    mappings: dict[str, str],
    body: str,
    query: dict[str, str],
    content_type: str | None,
) -> dict[str, str]:
    """Evaluate mappings that are more than plain paths in a sandbox worker, under the company's share of the
    workers and a CPU budget; raises TransformError or SandboxBusy."""
    cpu_ms = svc.settings.jsonpath_cpu_ms
    payload = {"mappings": mappings, "body": body, "queryParams": query, "contentType": content_type}
    try:
        result = await run_in_threadpool(
            default_pool().run_task,
            "jsonpath",
            payload,
            tenant=target.company_id,
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
