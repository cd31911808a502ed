"""The scheduler area of the worker: turn due fires into runs, run each one's action, recover lost runs.

The leader's timer claims fires due within the next ``LOOKAHEAD`` in the DB (one run row per (event,
scheduled time), unique) and sends a small tick record per run to ``schedule.ticks``; the agent on that
topic waits until the run's scheduled time, claims it (QUEUED → RUNNING, compare-and-set) and runs the
action (streams/scheduled/actions.py). Claiming ahead keeps the DB work and the trip through Kafka out of
the lateness. A tick lost with its worker leaves the run QUEUED or RUNNING; the reconciler hands it out
again, and the claim keeps a redelivered tick from running anything twice. A RUNNING run's lease is
renewed by the worker acting on it (every worker renews its own, ``renew_leases``), so the reconciler, on
whichever worker leads, re-runs only a run whose worker stopped renewing: one that died, or held the run
past its cap (core/leases.py).
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import faust

from core import leases
from core.schedules.retries import Backoff
from schemas.deliveries import HandlerOutcome
from schemas.records import GenerationMarker, ScheduleTick, UnknownRecord, decode
from schemas.scheduled.events import RunStatus
from schemas.settings import Settings
from schemas.topics import SCHEDULE_TICKS
from sinks.db.group_commit import Gathered
from sinks.db.scheduled import batches as scheduled_batches
from sinks.db.scheduled import due as scheduled_due
from sinks.db.scheduled import retries as scheduled_retries
from sinks.db.scheduled import runs as scheduled_runs
from sinks.db.scheduled import sweeps
from sinks.db.scheduled.events import Tick
from sinks.db.scheduled.runs import RunWork
from streams.app import metrics_of, raw_topic
from streams.runtime import HandlerRuntime, survive_outage
from streams.scheduled.actions import act
from streams.scheduled.dead_letters import BATCH as DEAD_LETTER_BATCH
from streams.scheduled.dead_letters import CLAIM_LEASE, publish_claimed

log = logging.getLogger(__name__)
TICK_INTERVAL_SECONDS = 0.5
# Fires are claimed and their ticks sent this long before they are due (several timer intervals).
LOOKAHEAD = timedelta(seconds=2)
# A tick never waits longer than this for its scheduled time (a clock step must not park a run).
MAX_WAIT_SECONDS = 60.0


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class TickRef:
    run_id: str
    due: datetime | None


def parse_tick(raw: bytes) -> TickRef | None:
    try:
        tick = decode(raw, ScheduleTick)
    except GenerationMarker:
        return None
    except UnknownRecord as exc:
        log.warning("skipping a tick record", extra={"reason": str(exc)})
        return None
    return TickRef(tick.run_id, tick.scheduled_for)


class SchedulerRuntime(HandlerRuntime):
    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(settings, name="scheduler-commit", **kwargs)
        # Runs that fall due together are claimed together: one statement instead of one per run.
        self._claims: list[tuple[str, asyncio.Future[RunWork | None]]] = []
        # Runs claimed here whose outcome is not recorded yet, as (run id, attempt): this process renews
        # their leases until their cap, and its own reconciler leaves them alone until then.
        self.acting: leases.Holdings[tuple[str, int]] = leases.Holdings()
        self.lease = timedelta(seconds=settings.lease_seconds)
        self.cap = leases.hold_cap(settings.scheduler_action_timeout_seconds, settings.lease_cap_factor)
        self.retry_backoff = Backoff(
            settings.scheduler_retry_base_seconds, settings.scheduler_retry_max_seconds
        )

    async def publish(self, ticks: list[Tick]) -> None:
        """All at once: the producer batches them, instead of one broker round trip per tick."""
        await asyncio.gather(
            *(self.publisher.publish_record(tick.record(), key=tick.event_id) for tick in ticks)
        )

    async def fire_due(self) -> None:
        """One round of the leader's timer, in one transaction (sinks/db/scheduled/due.py): the ticks of the
        fires and retries coming due and of the buffered runs released, then the dead-letter records owed."""
        await self.ready.wait()
        moment = now()
        due = await self.committer.run(
            partial(
                scheduled_due.take_due,
                now=moment,
                horizon=moment + LOOKAHEAD,
                limit=5000,
                dead_letter_lease=CLAIM_LEASE,
                dead_letter_limit=DEAD_LETTER_BATCH,
            )
        )
        await self.publish(due.ticks)
        await publish_claimed(self.committer, self.publisher, due.dead_letters)

    async def reconcile(self) -> None:
        await self.ready.wait()
        moment, settings = now(), self.settings
        queued_grace = settings.queued_grace_at(moment)
        running_grace = timedelta(
            seconds=self.settings.scheduler_action_timeout_seconds + settings.processing_grace_seconds
        )
        # Time spent waiting for the database does not count, as for deliveries: during an outage no worker
        # can renew its leases, and a run whose lease lapsed only then is late, not lost.
        judged = moment - timedelta(seconds=self.outages.lag())
        lost, abandoned = await self.committer.run(
            partial(
                sweeps.take_stray,
                now=moment,
                queued_grace=queued_grace,
                judged=judged,
                running_grace=running_grace,
                limit=500,
                acting=frozenset(run_id for run_id, _attempt in self.acting.renewable(moment)),
            )
        )
        if lost or abandoned:
            log.warning("re-sending scheduled runs", extra={"queued": len(lost), "abandoned": len(abandoned)})
        await self.publish(lost + abandoned)

    async def renew_leases(self) -> None:
        """One statement for every run this process acts on within its cap; none when it acts on none."""
        await self.ready.wait()
        moment = now()
        for run_id, attempt in self.acting.past_cap(moment):
            log.warning(
                "scheduled run held past its cap; its lease is no longer renewed",
                extra={"run_id": run_id, "attempt": attempt, "cap_seconds": self.cap.total_seconds()},
            )
        held = self.acting.renewable(moment)
        if held:
            await self.committer.run(partial(sweeps.renew_leases, held=held, until=moment + self.lease))

    async def start_runs(self, ticks: list[TickRef]) -> None:
        """Each run waits for its time and is claimed off the stream, so the stream moves on at once."""
        await self.ready.wait()
        for tick in ticks:
            job = asyncio.create_task(self._run_when_due(tick))
            self.running.add(job)
            job.add_done_callback(self.running.discard)

    async def _run_when_due(self, tick: TickRef) -> None:
        if tick.due is not None:
            wait = (tick.due - now()).total_seconds()
            if wait > 0:
                await asyncio.sleep(min(wait, MAX_WAIT_SECONDS))
        try:
            work = await self._claim(tick.run_id)
        except Exception:
            # The run stays QUEUED; the reconciler sends its tick again.
            log.exception("claiming a scheduled run failed", extra={"run_id": tick.run_id})
            return
        if work is not None:
            key = (work.run_id, work.attempt)
            self.acting.hold(key, work.started_at, self.cap)
            try:
                await self._run(work)
            finally:
                self.acting.release(key)

    async def _claim(self, run_id: str) -> RunWork | None:
        """The claim is durable before the action starts."""
        waiter: asyncio.Future[RunWork | None] = asyncio.get_running_loop().create_future()
        self._claims.append((run_id, waiter))
        if len(self._claims) == 1:
            flush = asyncio.create_task(self._flush_claims())
            self.running.add(flush)
            flush.add_done_callback(self.running.discard)
        return await waiter

    async def _flush_claims(self) -> None:
        await asyncio.sleep(0)  # let the runs waking in this same moment join the batch
        batch, self._claims = self._claims, []
        moment = now()
        claim = scheduled_batches.Claim([run_id for run_id, _ in batch], moment, moment + self.lease)
        try:
            # Gathered: the flushes that wait for the same group commit are claimed together.
            claimed = await self.committer.run(Gathered(scheduled_batches.claim_together, claim))
            works = {work.run_id: work for work in claimed}
        except Exception as exc:
            for _, waiter in batch:
                waiter.set_exception(exc)
            return
        # A run named twice in the batch (its tick re-sent by the reconciler and redelivered after a
        # rebalance) is acted on by its first waiter only: the claim moved it once.
        for run_id, waiter in batch:
            waiter.set_result(works.pop(run_id, None))

    async def _run(self, work: RunWork) -> None:
        try:
            if self.settings.scheduler_pause_before_action_seconds:
                await asyncio.sleep(self.settings.scheduler_pause_before_action_seconds)
            status, outcome = await act(self, work)
        except Exception as exc:
            log.exception("scheduled run crashed", extra={"run_id": work.run_id})
            status = RunStatus.FAILED
            outcome = HandlerOutcome(ok=False, error=f"Internal error: {exc}", retryable=False)
        ended_at = now()
        if status is not RunStatus.FAILED and not work.delete_when_done:
            # Most ends: gathered with the batch's others into one executemany.
            end = scheduled_batches.PlainEnd(
                run_id=work.run_id,
                attempt=work.attempt,
                status=status,
                started_at=work.started_at,
                ended_at=ended_at,
                response=outcome.response,
                error=outcome.error,
            )
            await self.committer.run(Gathered(scheduled_batches.finish_plain_runs, end))
            self.metrics.run_ended(status.value)
            return
        # The same rule as webhook deliveries: HTTP 408/425/429/5xx, timeouts and connection errors retry.
        retryable = status is RunStatus.FAILED and outcome.retryable
        ended = await self.committer.run(
            partial(
                scheduled_runs.finish_run,
                run_id=work.run_id,
                status=status,
                ended_at=ended_at,
                response=outcome.response,
                error=outcome.error,
                started_at=work.started_at,
                attempt=work.attempt,
                delete_event=work.event_id if work.delete_when_done else None,
                retry=self._retry_timing() if retryable else None,
            )
        )
        if ended:  # not when a retry follows, nor when another attempt took the run over
            self.metrics.run_ended(status.value)

    def _retry_timing(self) -> scheduled_retries.RetryTiming:
        return scheduled_retries.RetryTiming(self.retry_backoff, random.random())  # noqa: S311 - jitter


def register(app: faust.App, settings: Settings) -> None:
    runtime = SchedulerRuntime(settings, metrics=metrics_of(app))
    app.service(runtime)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.agent(raw_topic(app, settings, SCHEDULE_TICKS), name="run_scheduled_events")
    async def run_scheduled_events(stream: faust.StreamT[bytes]) -> None:
        async for batch in stream.take(100, within=0.02):
            ticks = [tick for tick in map(parse_tick, batch) if tick is not None]
            if ticks:
                await runtime.start_runs(ticks)

    # Fires, retries, released buffered runs and dead letters: one round, one transaction.
    @app.timer(interval=TICK_INTERVAL_SECONDS, on_leader=True)  # type: ignore[untyped-decorator]
    async def fire_due_events() -> None:
        await survive_outage(runtime.fire_due, "fire due events")

    @app.timer(interval=settings.reconcile_interval_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def reconcile_scheduled_runs() -> None:
        await survive_outage(runtime.reconcile, "reconcile scheduled runs")

    # On every worker, not only the leader: each renews the leases of the runs it acts on.
    @app.timer(interval=leases.renewal_interval(settings.lease_seconds))  # type: ignore[untyped-decorator]
    async def renew_scheduled_run_leases() -> None:
        await survive_outage(runtime.renew_leases, "renew scheduled run leases")
