"""The scheduler area of the worker: turn due fires into runs, run each one's action, recover lost runs.

The leader's timer claims due fires in the DB (one run row per (event, scheduled time), unique) and sends a
small tick record per run to ``schedule.ticks``; the agent on that topic claims the run (QUEUED → RUNNING,
compare-and-set) and runs the action. A tick lost with its worker leaves the run QUEUED or RUNNING; the
reconciler hands it out again, and the claim keeps a redelivered tick from running anything twice.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import faust

from schemas.deliveries import HandlerOutcome
from schemas.envelopes import Envelope
from schemas.scheduled_events import RunStatus
from schemas.settings import Settings
from schemas.topics import SCHEDULE_TICKS
from sinks.db import scheduled_events
from sinks.db.scheduled_events import RunWork, Tick
from streams.app import raw_topic
from streams.runtime import HandlerRuntime

log = logging.getLogger(__name__)
TICK_TYPE = "schedule.tick"
TABLE_WRITE_TYPE = "table.write"
TICK_INTERVAL_SECONDS = 0.5
# Of the fires missed while no worker ran, only the latest one within this window still runs.
CATCH_UP_WINDOW = timedelta(hours=1)


def now() -> datetime:
    return datetime.now(UTC)


def parse_tick(raw: bytes) -> str | None:
    try:
        envelope = Envelope.from_bytes(raw)
        if envelope.type != TICK_TYPE or envelope.v != 1:
            return None
        return str(envelope.payload["runId"])
    except (ValueError, KeyError):
        log.warning("skipping a malformed tick record")
        return None


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


class SchedulerRuntime(HandlerRuntime):
    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(settings, name="scheduler-commit", **kwargs)

    async def publish(self, ticks: list[Tick]) -> None:
        for tick in ticks:
            envelope = Envelope(type=TICK_TYPE, payload=tick.payload())
            await self.publisher.publish(SCHEDULE_TICKS, envelope, key=tick.event_id)

    async def fire_due(self) -> None:
        await self.ready.wait()
        moment = now()
        ticks = await self.committer.run(
            partial(scheduled_events.claim_due, now=moment, window=CATCH_UP_WINDOW, limit=1000)
        )
        await self.publish(ticks)

    async def reconcile(self) -> None:
        await self.ready.wait()
        moment, settings = now(), self.settings
        queued_grace = timedelta(seconds=settings.queued_grace_seconds)
        lost = await self.committer.run(
            partial(scheduled_events.take_lost, now=moment, grace=queued_grace, limit=500)
        )
        running_grace = timedelta(
            seconds=self.settings.scheduler_action_timeout_seconds + settings.processing_grace_seconds
        )
        abandoned = await self.committer.run(
            partial(scheduled_events.take_abandoned, now=moment, grace=running_grace, limit=500)
        )
        if lost or abandoned:
            log.warning("re-sending scheduled runs", extra={"queued": len(lost), "abandoned": len(abandoned)})
        await self.publish(lost + abandoned)

    async def start_runs(self, run_ids: list[str]) -> None:
        """The claim is durable before the action starts; the action itself runs off the stream."""
        await self.ready.wait()
        for run_id in run_ids:
            work = await self.committer.run(partial(scheduled_events.claim_run, run_id=run_id, now=now()))
            if work is None:
                continue
            job = asyncio.create_task(self._run(work))
            self.running.add(job)
            job.add_done_callback(self.running.discard)

    async def _run(self, work: RunWork) -> None:
        try:
            if self.settings.scheduler_pause_before_action_seconds:
                await asyncio.sleep(self.settings.scheduler_pause_before_action_seconds)
            status, outcome = await self._act(work)
        except Exception as exc:
            log.exception("scheduled run crashed", extra={"run_id": work.run_id})
            status, outcome = RunStatus.FAILED, HandlerOutcome(ok=False, error=f"Internal error: {exc}")
        await self.committer.run(
            partial(
                scheduled_events.finish_run,
                run_id=work.run_id,
                status=status,
                ended_at=now(),
                response=outcome.response,
                error=outcome.error,
            )
        )

    async def _act(self, work: RunWork) -> tuple[RunStatus, HandlerOutcome]:
        if work.action_type == "UPDATE_SVCDB":
            return await self._svcdb(work)
        request = handler_request(work)
        resource_id = str(request.get("toolId") or request.get("agentId"))
        kind = "TOOL" if work.action_type == "INVOKE_TOOL" else "AGENT"
        handler = await asyncio.to_thread(self.handler, work.company_id, resource_id)
        if handler is None or handler.type != kind:
            return RunStatus.FAILED, HandlerOutcome(ok=False, error=f"{kind} {resource_id} not found")
        outcome = await self.invoker.invoke(
            handler.endpoint, request, self.settings.scheduler_action_timeout_seconds
        )
        return (RunStatus.SUCCEEDED if outcome.ok else RunStatus.FAILED), outcome

    async def _svcdb(self, work: RunWork) -> tuple[RunStatus, HandlerOutcome]:
        operation = {
            k: v for k, v in work.config.items() if k not in ("skipIfTargetTableMissing", "description")
        }
        table_id = str(operation.get("targetTableId"))
        outcome = await self.svcdb.run(
            company_id=work.company_id,
            table_id=table_id,
            write_id=work.run_id,
            operation=operation,
            limit_seconds=self.settings.scheduler_action_timeout_seconds,
        )
        if outcome is None:
            message = f"Target table {table_id} not found"
            if work.config.get("skipIfTargetTableMissing"):
                return RunStatus.SKIPPED, HandlerOutcome(ok=True, error=message)
            return RunStatus.FAILED, HandlerOutcome(ok=False, error=message)
        return (RunStatus.SUCCEEDED if outcome.ok else RunStatus.FAILED), outcome


def register(app: faust.App, settings: Settings) -> None:
    runtime = SchedulerRuntime(settings)
    app.service(runtime)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.agent(raw_topic(app, settings, SCHEDULE_TICKS), name="run_scheduled_events")
    async def run_scheduled_events(stream: faust.StreamT[bytes]) -> None:
        async for batch in stream.take(100, within=0.02):
            run_ids = [run_id for run_id in map(parse_tick, batch) if run_id is not None]
            if run_ids:
                await runtime.start_runs(run_ids)

    @app.timer(interval=TICK_INTERVAL_SECONDS, on_leader=True)  # type: ignore[untyped-decorator]
    async def fire_due_events() -> None:
        await runtime.fire_due()

    @app.timer(interval=settings.reconcile_interval_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def reconcile_scheduled_runs() -> None:
        await runtime.reconcile()
