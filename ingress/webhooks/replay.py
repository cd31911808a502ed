"""``POST /svc_poweruser/custom-webhooks/replay``: re-run stored executions of a webhook as new executions.

WRITE access to the webhook is needed; a webhook the caller cannot see answers exactly like the other
poweruser routes (401 ``Webhook not found``). The call selects the executions (by id or by filter, the oldest
``limit``), runs each stored request through the webhook's current configuration
(``replay_pipeline.py``), records the new executions in group commits of the delivery path (each
with its ``replayOf``) before it answers, and paces their hand-over to the handler queue at
``SVC_REPLAY_RATE_PER_SECOND`` per company: the slots due now are published here exactly as the trigger
publishes, the later ones wait in the database for the worker's sweep of due attempts
(``sinks/db/webhooks/replays.py``).

Recording is the call's own cost, paid in this process while it answers live triggers, and it writes to
the database's one write lock as their deliveries do; back to back it would slow the live triggers
(docs/performance.md, replay). So the call records in small steps
(``STEP``), at most ``SVC_REPLAY_RECORD_RATE_PER_SECOND`` executions a second, resting between steps; the
replay calls of one process take their steps in turn, so together they never record faster.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from datetime import UTC, datetime, timedelta
from functools import partial

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from core.webhooks.bodies import Body
from core.webhooks.replay import Selection, chunked, rest_after, select_by_ids
from ingress.deps import (
    CommitterDep,
    MaskerDep,
    PoweruserCaller,
    PublisherDep,
    Sessions,
    SessionsDep,
    SettingsDep,
    StoreDep,
)
from ingress.errors import ApiError
from ingress.webhooks.manage import NOT_FOUND, _visible
from ingress.webhooks.pipeline import Refused
from ingress.webhooks.replay_pipeline import SANDBOX_BUSY, SandboxWait, SandboxWaitOver, rerun
from ingress.webhooks.trigger_screening import screens_for
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.deliveries import DeliveryTask
from schemas.enums import AccessLevel
from schemas.replay import ReplayAnswer, ReplayedExecution, ReplayRequest
from schemas.settings import Settings
from sinks import webhook_bodies
from sinks.db.group_commit import GroupCommitter
from sinks.db.webhooks import deliveries, replays
from sinks.db.webhooks.deliveries import TriggerTarget
from sinks.db.webhooks.replays import Replay, StoredRequest
from sinks.iceberg.masking import Masker
from sinks.kafka import Publisher
from sinks.objectstore import ObjectStore

log = logging.getLogger(__name__)
router = APIRouter(prefix="/svc_poweruser/custom-webhooks", tags=["custom webhooks"])

# Stored requests read, re-run and recorded per step, and the most request bytes one group commit of
# replays stands for: a replay joins the delivery path's group commits in small units, so live deliveries
# never wait behind a large one.
STEP = 16
RECORD_MAX_BYTES = 4 * 1024 * 1024
# The least rest after a step: on a machine too slow for SVC_REPLAY_RECORD_RATE_PER_SECOND the live
# triggers queued behind a step still run before the next one.
LEAST_REST = 0.01
# How long one call may wait in all for a busy sandbox (scripts of the webhook's current configuration).
SANDBOX_WAIT_SECONDS = 60.0
# Slots due within this are published by the call; the worker sweeps due attempts about this often.
DUE_WINDOW = timedelta(seconds=0.5)
DISABLED = "Webhook is disabled: enable it before replaying (a dry run is allowed)"
NOT_STORED = "Not replayed: its stored request is no longer in the history"
NOT_RECORDED = "Not replayed: recording failed ({}); replay this execution again by its executionId"


def _now() -> datetime:
    return datetime.now(UTC)


_TURNS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def _turn() -> asyncio.Lock:
    """The lock the replay calls on this event loop take their steps under, one step at a time."""
    loop = asyncio.get_running_loop()
    lock = _TURNS.get(loop)
    if lock is None:
        lock = _TURNS[loop] = asyncio.Lock()
    return lock


def _select(sessions: Sessions, caller: Principal, body: ReplayRequest) -> tuple[TriggerTarget, Selection]:
    with sessions() as session:
        visible = _visible(session, caller, body.webhook_id, AccessLevel.WRITE)
        target = deliveries.load_target(session, visible.webhook.id)
        if target is None:  # deleted since the line above
            raise ApiError(401, NOT_FOUND)
        company, webhook = caller.company_id, visible.webhook.id
        if body.execution_ids is not None:
            found = replays.received_times(session, company, webhook, body.execution_ids)
            return target, select_by_ids(body.execution_ids, found, body.limit)
        flt = body.filter
        if flt is None:  # the model requires one of the two
            raise ApiError(400, "send exactly one of executionIds and filter")
        matched, chosen = replays.by_filter(
            session, company, webhook, flt.status, flt.from_, flt.to, body.limit
        )
        return target, Selection(matched=matched, chosen=chosen, not_found=[])


def _stored(
    sessions: Sessions, store: ObjectStore, company_id: str, execution_ids: list[str]
) -> list[tuple[StoredRequest, Body]]:
    """The stored requests with their bodies read back, the database's session closed before the object
    store is read."""
    with sessions() as session:
        stored = replays.stored_requests(session, company_id, execution_ids)
    bodies = webhook_bodies.read_all(store, [request.body for request in stored])
    return list(zip(stored, bodies, strict=True))


async def _publish(publisher: Publisher, tasks: list[DeliveryTask]) -> None:
    """As the trigger publishes; a record the broker refused stays QUEUED and dispatched, and the worker's
    reconciler sends it again after SVC_QUEUED_GRACE_SECONDS."""
    outcomes = await asyncio.gather(
        *(publisher.publish_record(task) for task in tasks), return_exceptions=True
    )
    failed = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    if failed:
        log.warning(
            "replayed executions left to the reconciler",
            extra={"count": len(failed), "error": str(failed[0])},
        )


class _Run:
    """One replay call's progress: what it recorded, and why it stopped early, if it did."""

    def __init__(
        self,
        target: TriggerTarget,
        settings: Settings,
        sessions: Sessions,
        committer: GroupCommitter,
        publisher: Publisher,
        masker: Masker,
        store: ObjectStore,
    ) -> None:
        self.target, self.settings, self.sessions = target, settings, sessions
        self.committer, self.publisher, self.store = committer, publisher, store
        self.screens = screens_for(target, masker)
        self.wait = SandboxWait(time.monotonic() + SANDBOX_WAIT_SECONDS)
        self.results: dict[str, ReplayedExecution] = {}
        self.stopped: str | None = None
        self.recorded = 0

    async def chunk(self, execution_ids: list[str]) -> None:
        company_id = self.target.company_id
        stored = await run_in_threadpool(_stored, self.sessions, self.store, company_id, execution_ids)
        ready: list[Replay] = []
        for request, body in stored:
            if body.problem is not None:  # never replayed as an empty body
                self.results[request.execution_id] = ReplayedExecution(
                    original_execution_id=request.execution_id, error=f"Not replayed: {body.problem}"
                )
                continue
            try:
                outcome = await rerun(
                    self.target,
                    self.screens,
                    request,
                    body.text,
                    self.wait,
                    _now(),
                    jsonpath_cpu_ms=self.settings.jsonpath_cpu_ms,
                )
            except SandboxWaitOver:
                self.stopped = SANDBOX_BUSY
                break
            if isinstance(outcome, Refused):
                self.results[request.execution_id] = ReplayedExecution(
                    original_execution_id=request.execution_id, error=outcome.message
                )
            else:
                ready.append(Replay(request.execution_id, outcome))
            # A re-run on the event loop (an inline filter and transform) awaits nothing that suspends:
            # live triggers that arrived meanwhile go first, so none waits behind a whole step of re-runs.
            await asyncio.sleep(0)
        for part in chunked(ready, lambda r: len(r.delivery.payload), STEP, RECORD_MAX_BYTES):
            if not await self._record(part):
                return

    async def _record(self, part: list[Replay]) -> bool:
        rate = self.settings.replay_rate_per_second
        unit = partial(replays.record, replays=part, now=_now(), rate=rate, window=DUE_WINDOW)
        try:
            recorded = await self.committer.run(unit)
        except Exception as exc:
            if not self.recorded:
                raise  # nothing recorded yet: the call fails as a whole (an outage answers 503)
            self.stopped = NOT_RECORDED.format(type(exc).__name__)
            return False
        self.recorded += len(recorded)
        for item in recorded:
            self.results[item.original_execution_id] = ReplayedExecution(
                original_execution_id=item.original_execution_id,
                execution_id=item.task.execution_id,
                status=item.status,
                due_at=iso_utc(item.due_at),
            )
        await _publish(self.publisher, [item.task for item in recorded if item.publish_now])
        return True


@router.post("/replay", response_model=ReplayAnswer, response_model_by_alias=True)
async def replay_webhook(
    body: ReplayRequest,
    caller: PoweruserCaller,
    settings: SettingsDep,
    sessions: SessionsDep,
    committer: CommitterDep,
    publisher: PublisherDep,
    masker: MaskerDep,
    store: StoreDep,
) -> ReplayAnswer:
    target, selection = await run_in_threadpool(_select, sessions, caller, body)
    if body.dry_run:
        return ReplayAnswer(
            matched=selection.matched,
            replayed=0,
            executions=[ReplayedExecution(original_execution_id=i) for i in selection.chosen],
            not_found=selection.not_found,
            dry_run=True,
        )
    if not target.is_enabled:
        raise ApiError(400, DISABLED)
    run = _Run(target, settings, sessions, committer, publisher, masker, store)
    record_rate = settings.replay_record_rate_per_second
    for first in range(0, len(selection.chosen), STEP):
        if run.stopped is not None:
            break
        step = selection.chosen[first : first + STEP]
        async with _turn():
            began = time.monotonic()
            await run.chunk(step)
            await asyncio.sleep(rest_after(time.monotonic() - began, len(step), record_rate, LEAST_REST))
    executions = [
        run.results.get(i) or ReplayedExecution(original_execution_id=i, error=run.stopped or NOT_STORED)
        for i in selection.chosen
    ]
    return ReplayAnswer(
        matched=selection.matched,
        replayed=sum(1 for item in executions if item.execution_id is not None),
        executions=executions,
        not_found=selection.not_found,
    )
