"""What a claimed scheduled run does: call its tool or agent (at the version its event picks at this fire) or
run its svcdb operation (through streams/handler_call.py, as a webhook delivery does), and the status and
outcome that its finish records (streams/scheduled/scheduler.py)."""

from __future__ import annotations

from typing import Any

from schemas.deliveries import HandlerOutcome
from schemas.scheduled.events import RunStatus
from sinks.db.scheduled.runs import RunWork
from streams.handler_call import invoke_handler, run_svcdb, table_missing
from streams.runtime import HandlerRuntime


def handler_request(work: RunWork) -> dict[str, Any]:
    """The body sent to the tool or agent. ``executionId``/``idempotencyKey`` are the run id, the same for
    every attempt, so a handler can tell a retried run from a new one."""
    common: dict[str, Any] = {
        "eventId": work.event_id,
        "runId": work.run_id,
        "scheduledFor": work.scheduled_for.isoformat(),
        "executionId": work.run_id,
        "idempotencyKey": work.run_id,
        "attemptNumber": work.attempt,
    }
    if work.action_type == "INVOKE_TOOL":
        request = work.config.get("toolExecutionRequest") or {}
        return common | {
            "toolId": request.get("toolId"),
            "variables": request.get("variables") or {},
            "environmentVariables": request.get("environmentVariables") or {},
        }
    request = work.config.get("agentExecutionRequest") or {}
    return common | {
        "agentId": request.get("agentId"),
        "input": request.get("input") or [],
        "environmentVariables": request.get("environmentVariables") or {},
    }


async def act(runtime: HandlerRuntime, work: RunWork) -> tuple[RunStatus, HandlerOutcome]:
    if work.action_type == "UPDATE_SVCDB":
        return await _svcdb(runtime, work)
    request = handler_request(work)
    resource_id = str(request.get("toolId") or request.get("agentId"))
    kind = "TOOL" if work.action_type == "INVOKE_TOOL" else "AGENT"
    outcome = await invoke_handler(
        runtime,
        company_id=work.company_id,
        kind=kind,
        resource_id=resource_id,
        stored_version=work.config.get("version"),
        label=f"{kind} {resource_id}",
        request=request,
        timeout_seconds=runtime.settings.scheduler_action_timeout_seconds,
    )
    return (RunStatus.SUCCEEDED if outcome.ok else RunStatus.FAILED), outcome


async def _svcdb(runtime: HandlerRuntime, work: RunWork) -> tuple[RunStatus, HandlerOutcome]:
    operation = {k: v for k, v in work.config.items() if k not in ("skipIfTargetTableMissing", "description")}
    # The run id is the write id for every attempt, as the request's idempotencyKey is.
    timeout = runtime.settings.scheduler_action_timeout_seconds
    outcome = await run_svcdb(runtime, work.company_id, work.run_id, operation, timeout)
    if outcome is None:
        message = table_missing(operation)
        if work.config.get("skipIfTargetTableMissing"):
            return RunStatus.SKIPPED, HandlerOutcome(ok=True, error=message)
        return RunStatus.FAILED, HandlerOutcome(ok=False, error=message, retryable=False)
    return (RunStatus.SUCCEEDED if outcome.ok else RunStatus.FAILED), outcome
