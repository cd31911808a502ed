"""The webhook delivery area of the worker: run each queued attempt's handler, record the outcome, queue
retries in the DB, and sweep for due retries and lost work.

A stream event is kept short (Faust's rebalance waits for it): the batch is claimed durably (QUEUED →
PROCESSING, compare-and-set) and the handler calls (streams/webhooks/delivery_handlers.py) go to a bounded
pool of tasks, so a slow handler never holds a partition. The worker renews the lease of every attempt it acts
on (``renew_leases``, one statement a round); a worker that dies leaves PROCESSING entries whose leases run
out, and the reconciler, on whichever worker leads, fails those attempts and queues the next. An attempt that
merely runs long keeps its lease up to its cap (core/leases.py), so it is never run twice because it was slow.

While the metadata database is unreachable the agent and the timers wait for it (``streams/runtime.py``):
the claim, the handler lookup and the outcome are tried again until the database answers, so an attempt is
neither dropped nor run twice because of an outage.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import faust
from sqlalchemy.orm import Session

from core import leases, tracing
from core.tracing import TraceContext
from core.webhooks import fair_share
from core.webhooks.destinations import breaker_of
from core.webhooks.handler_request import build_request, recorded
from schemas.deliveries import DeliveryResult, DeliveryTask, HandlerOutcome
from schemas.records import GenerationMarker, UnknownRecord, decode
from schemas.settings import Settings
from schemas.topics import WEBHOOK_DELIVERIES
from sinks.db.availability import describe, unreachable
from sinks.db.group_commit import Gathered
from sinks.db.webhooks import dedup, delivery_attempts, delivery_sweeps, destinations
from sinks.db.webhooks.delivery_attempts import Attempt, Finish, Settled
from sinks.telemetry import Spans, now_ns
from streams.app import metrics_of, raw_topic
from streams.runtime import HandlerRuntime, survive_outage
from streams.webhooks.delivery_handlers import call_handler, handler_timeout, retry_at
from streams.webhooks.delivery_spans import attempt_spans

log = logging.getLogger(__name__)
# A round of the sweep of due attempts, or of the reconciler's look for queued deliveries nobody took, hands
# over at most LOST_PAGES pages of LOST_PAGE.
LOST_PAGE, LOST_PAGES = 500, 20
LOST_WORKER = "The worker running this attempt stopped before it finished"
# How often the leader wakes deliveries waiting for a destination that has room for another reason than a
# call of its own ending (a rate bucket refilled, a Retry-After or a probe interval over).
WAKE_SECONDS = 0.2


def now() -> datetime:
    return datetime.now(UTC)


def parse_task(raw: bytes) -> DeliveryTask | None:
    try:
        return decode(raw, DeliveryTask)
    except GenerationMarker:
        return None
    except UnknownRecord as exc:
        log.warning("skipping a delivery record", extra={"reason": str(exc)})
        return None


class DeliveryRuntime(HandlerRuntime):
    """Clients the delivery agent and timers share; started and stopped with the Faust app."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(settings, name="worker-commit", **kwargs)
        self.slots = asyncio.Semaphore(settings.worker_concurrency)  # binds to the loop on first use
        # Entry ids of the attempts claimed here whose outcome is not recorded yet: this process renews their
        # leases until their cap, and its own reconciler leaves them alone until then.
        self.acting: leases.Holdings[str] = leases.Holdings()
        # Fair shares of the slots across companies (core/webhooks/fair_share.py): the slots each company's
        # attempts hold here, the slots each company's claims wait for, and the companies whose deliveries
        # this worker left waiting for their share.
        self.held: Counter[str] = Counter()
        self.wanting: Counter[str] = Counter()
        self.parked: set[str] = set()
        self.refilling = False
        self.lease = timedelta(seconds=settings.lease_seconds)
        self.breaker = breaker_of(settings)
        self.hand_over = delivery_attempts.HandOver(lease=self.lease, clock=now)
        self.spans = Spans(
            settings.otlp_endpoint, service="svc-worker", timeout_seconds=settings.otlp_timeout_seconds
        )

    async def on_stop(self) -> None:
        await super().on_stop()
        self.spans.shutdown()

    async def dispatch(self, tasks: list[DeliveryTask]) -> None:
        """Publish together, so the records share batches (keyless: one partition per moment)."""
        await asyncio.gather(*(self.publisher.publish_record(task) for task in tasks))

    async def start_attempts(self, tasks: list[DeliveryTask]) -> None:
        """Claim only what the pool can start now: a claimed attempt that waits for a slot would be lost with
        the worker and count as a failed attempt."""
        await self.ready.wait()
        size = self.settings.worker_concurrency
        for first in range(0, len(tasks), size):
            chunk = await self._fair(tasks[first : first + size])
            companies = Counter(task.company_id for task in chunk)
            self.wanting.update(companies)
            try:
                for _ in chunk:
                    await self.slots.acquire()  # the stream waits while the pool is full
            finally:
                self.wanting -= companies  # drops the counts that reach zero
            if not chunk:
                continue
            moment = now()
            try:
                # Waits out an unreachable database (the committer runs the claim again).
                attempts = await self.committer.run(
                    partial(
                        delivery_attempts.claim,
                        tasks=chunk,
                        now=moment,
                        lease_until=moment + self.lease,
                        breaker=self.breaker,
                    )
                )
            except Exception as exc:
                for _ in chunk:
                    self.slots.release()
                if not unreachable(exc):
                    raise
                # Stopping while the database is away: the entries stay QUEUED and the reconciler sends
                # them again.
                log.warning("deliveries left unclaimed", extra={"count": len(chunk), "error": describe(exc)})
                return
            for _ in range(len(chunk) - len(attempts)):
                self.slots.release()
            for attempt in attempts:
                self._start(attempt)

    async def _fair(self, tasks: list[DeliveryTask]) -> list[DeliveryTask]:
        """The tasks that take a slot now; those of a company at its share wait for it in the DB, so the
        stream goes on to other companies' records (its own ending calls hand their slots to them)."""
        slots = self.settings.worker_concurrency
        go, wait = fair_share.split(tasks, self.held, +self.wanting, slots, self._free())
        if wait:
            await self.committer.run(partial(destinations.wait_for_share, tasks=wait, now=now()))
            self.parked.update(task.company_id for task in wait)
        return go

    def _free(self) -> int:
        """The slots neither held by an attempt nor waited for by a claim (about: the semaphore decides)."""
        return self.settings.worker_concurrency - sum(self.held.values()) - sum(self.wanting.values())

    async def _refill(self) -> None:
        """Slots free while deliveries wait here for their company's share (its calls ended giving their slots
        back, or another company's did): claim the oldest of them into those slots, equal parts by company."""
        self.refilling = True
        try:
            while self.parked and not self.should_stop:
                wanted = fair_share.refill(self._free(), self.parked)
                taken = 0
                for _ in range(sum(wanted.values())):
                    if self.slots.locked():
                        break
                    await self.slots.acquire()  # a free slot: no wait
                    taken += 1
                if taken < sum(wanted.values()):
                    wanted = fair_share.refill(taken, wanted)
                if not wanted:
                    for _ in range(taken):
                        self.slots.release()
                    return
                moment = now()
                try:
                    attempts, drained = await self.committer.run(
                        partial(
                            delivery_attempts.claim_for_shares,
                            wanted=wanted,
                            now=moment,
                            lease_until=moment + self.lease,
                            breaker=self.breaker,
                        )
                    )
                except Exception as exc:
                    for _ in range(taken):
                        self.slots.release()
                    # They wait on: the next call of theirs that ends, or the leader's sweep, takes them.
                    log.warning("waiting deliveries not claimed", extra={"error": describe(exc)})
                    return
                self.parked -= drained
                for _ in range(taken - len(attempts)):
                    self.slots.release()
                for attempt in attempts:
                    self._start(attempt)
                if not attempts:
                    return
        finally:
            self.refilling = False

    def _start(self, attempt: Attempt) -> None:
        """Run a claimed attempt in a slot already taken for it; its lease is renewed from now on."""
        cap = leases.hold_cap(handler_timeout(attempt.config), self.settings.lease_cap_factor)
        self.acting.hold(attempt.task.entry_id, attempt.started_at, cap)
        self.held[attempt.task.company_id] += 1
        job = asyncio.create_task(self._run(attempt))
        self.running.add(job)
        job.add_done_callback(self.running.discard)

    async def _run(self, attempt: Attempt) -> None:
        handed_over = False
        try:
            handed_over = await self._attempt(attempt)
        except Exception:
            log.exception("attempt crashed", extra={"entry_id": attempt.task.entry_id})
        finally:
            self.acting.release(attempt.task.entry_id)
            self.held[attempt.task.company_id] -= 1
            if self.held[attempt.task.company_id] <= 0:
                del self.held[attempt.task.company_id]
            if not handed_over:
                self.slots.release()
                if self.parked and not self.refilling:
                    refill = asyncio.create_task(self._refill())
                    self.running.add(refill)
                    refill.add_done_callback(self.running.discard)

    async def _attempt(self, attempt: Attempt) -> bool:
        """Call the handler and settle the outcome; True when the settle handed this slot to a woken attempt
        (``HandOver``), which runs at once in a task of its own."""
        task, config = attempt.task, attempt.config
        execution = config.resource_execution_config
        request: dict[str, Any] | None = None
        # The ingress span the delivery belongs to; this attempt's handler call is a span of its own.
        ingress = tracing.parse(attempt.trace_parent)
        span = None if ingress is None else ingress.child()
        called_ns = now_ns()
        if execution is None:
            outcome = HandlerOutcome(
                ok=False, error="No handler configured: set resourceExecutionConfig", retryable=False
            )
        else:
            request = build_request(
                execution,
                attempt.variables,
                execution_id=task.execution_id,
                attempt_number=task.attempt_number,
                webhook_id=task.webhook_id,
            )
            if attempt.queued_at is not None and task.attempt_number == 1:
                # A retry's wait is mostly its retryDelaySeconds, not lag: first attempts only.
                self.metrics.queue_lag.observe(max(0.0, called_ns / 1e9 - attempt.queued_at.timestamp()))
            began = time.perf_counter()
            outcome = await call_handler(self, task, execution, request, config, span)
            self.metrics.handler_seconds.observe(time.perf_counter() - began)
        ended = now()
        if span is not None and ingress is not None and self.spans.enabled:
            attempt_spans(self.spans, attempt, ingress, span, called_ns, outcome, execution or {})
        result = Finish(
            task=task,
            ok=outcome.ok,
            request_json=json.dumps(recorded(request)) if request is not None else None,
            response_json=json.dumps(outcome.response) if outcome.response is not None else None,
            error_message=outcome.error,
            ended_at=ended,
            retry_at=retry_at(config, task.attempt_number, ended, outcome),
            started_at=attempt.started_at,
            destination=attempt.destination,
            retry_after_seconds=outcome.retry_after_seconds,
            frees_slot=fair_share.keeps_slot(
                task.company_id, self.held, self.wanting, self.settings.worker_concurrency
            ),
            wake_share=task.company_id in self.parked,
        )
        # Gathered: the outcomes that share a group commit are written with one read and one executemany.
        settled = await self.committer.run(Gathered(self._settle_all, result))
        if settled.share_drained:
            self.parked.discard(task.company_id)
        self.metrics.attempt_settled(outcome.ok, result.retry_at is None)
        if settled.next is not None:
            self._start(settled.next)
        try:
            if settled.woken:
                await self.dispatch(settled.woken)
            await self.publish_result(
                task, outcome, execution or {}, attempt.started_at, ended, result.retry_at is not None, span
            )
        except Exception:
            if settled.next is None:
                raise
            log.exception("publishing after an attempt failed", extra={"entry_id": task.entry_id})
        return settled.next is not None

    def _settle_all(self, session: Session, results: list[Finish]) -> list[Settled]:
        # A stopping worker hands no slot over: it finishes what it holds.
        hand_over = None if self.should_stop else self.hand_over
        return delivery_attempts.settle_all(session, results, self.breaker, hand_over)

    async def publish_result(
        self,
        task: DeliveryTask,
        outcome: HandlerOutcome,
        execution: dict[str, Any],
        started: datetime,
        ended: datetime,
        will_retry: bool,
        span: TraceContext | None = None,
    ) -> None:
        result = DeliveryResult(
            entry_id=task.entry_id,
            execution_id=task.execution_id,
            webhook_id=task.webhook_id,
            company_id=task.company_id,
            attempt_number=task.attempt_number,
            status="SUCCESS" if outcome.ok else "FAILED",
            resource_type=execution.get("resourceType"),
            resource_id=execution.get("resourceId"),
            duration_ms=max(0, int((ended - started).total_seconds() * 1000)),
            error_message=outcome.error,
            will_retry=will_retry,
        )
        headers = None if span is None else [(tracing.HEADER, span.traceparent.encode())]
        await self.publisher.publish_record(result, key=task.execution_id, headers=headers)

    async def dispatch_pages(
        self, take: Callable[[Session], list[DeliveryTask]], *, lost: bool = False
    ) -> None:
        """Hand over what ``take`` marks dispatched, page after page while pages come back full: after a fresh
        embedded broker everything queued before it is due at once, and what the ingress accepted while the
        broker was away (restarting after a crash) waits for the reconciler, thousands at high rates."""
        for _page in range(LOST_PAGES):
            tasks = await self.committer.run(take)
            if tasks and lost:
                log.warning("re-dispatching queued deliveries nobody took", extra={"count": len(tasks)})
            await self.dispatch(tasks)
            if len(tasks) < LOST_PAGE:
                break

    async def dispatch_due(self) -> None:
        await self.ready.wait()
        await self.dispatch_pages(lambda session: delivery_sweeps.take_due(session, now(), LOST_PAGE))

    async def wake_waiting(self) -> None:
        """Hand to Kafka the waiting deliveries whose destination has room now (destinations.py)."""
        await self.ready.wait()
        if not await asyncio.to_thread(self._wake_due):
            return  # nearly every round: reads only, no write lock (none waits, or no destination has room)
        woken = await self.committer.run(lambda session: destinations.wake_waiting(session, now()))
        await self.dispatch(woken)

    def _wake_due(self) -> bool:
        with self.sessions() as session:
            return destinations.wake_due(session, now())

    async def reconcile(self) -> None:
        await self.ready.wait()
        settings = self.settings
        moment = now()
        queued_grace = settings.queued_grace_at(moment)
        await self.dispatch_pages(
            lambda session: delivery_sweeps.take_lost(session, moment, queued_grace, LOST_PAGE), lost=True
        )
        grace = timedelta(seconds=settings.processing_grace_seconds)
        # Time spent waiting for the database does not count: an attempt that waited out an outage to look
        # up its handler or record its outcome is late, not lost, and failing it would run it twice.
        judged = moment - timedelta(seconds=self.outages.lag())
        acting = frozenset(self.acting.renewable(moment))
        abandoned = await self.committer.run(
            lambda session: delivery_sweeps.abandoned(session, judged, grace, 500, acting)
        )
        for task, max_retries, destination in abandoned:
            retry = moment if task.attempt_number <= max_retries else None
            result = Finish(
                task=task,
                ok=False,
                request_json=None,
                response_json=None,
                error_message=LOST_WORKER,
                ended_at=moment,
                retry_at=retry,
                destination=destination,
                judged=False,
            )
            settled = await self.committer.run(Gathered(self._settle_all, result))
            self.metrics.attempt_settled(False, retry is None)
            if settled.woken:
                await self.dispatch(settled.woken)
        if abandoned:
            log.warning("failed attempts whose worker stopped", extra={"count": len(abandoned)})
        # Trigger deduplication keys past their window (lookups already ignore them), in bounded batches.
        await dedup.sweep(self.committer.run, moment)

    async def renew_leases(self) -> None:
        """One statement for every attempt this process acts on within its cap; none when it acts on none."""
        await self.ready.wait()
        moment = now()
        late = self.acting.past_cap(moment)
        if late:
            log.warning(
                "delivery attempts held past their cap; their leases are no longer renewed",
                extra={"count": len(late)},
            )
        held = self.acting.renewable(moment)
        if held:
            await self.committer.run(
                partial(delivery_sweeps.renew_leases, entry_ids=held, until=moment + self.lease)
            )


def register(app: faust.App, settings: Settings) -> None:
    runtime = DeliveryRuntime(settings, metrics=metrics_of(app))
    app.service(runtime)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.agent(raw_topic(app, settings, WEBHOOK_DELIVERIES), name="deliver_webhooks")
    async def deliver_webhooks(stream: faust.StreamT[bytes]) -> None:
        async for batch in stream.take(100, within=0.02):
            tasks = [task for task in map(parse_task, batch) if task is not None]
            if tasks:
                await runtime.start_attempts(tasks)

    @app.timer(interval=0.5, on_leader=True)  # type: ignore[untyped-decorator]
    async def dispatch_due_attempts() -> None:
        await survive_outage(runtime.dispatch_due, "dispatch due attempts")

    @app.timer(interval=WAKE_SECONDS, on_leader=True)  # type: ignore[untyped-decorator]
    async def wake_waiting_deliveries() -> None:
        await survive_outage(runtime.wake_waiting, "wake waiting deliveries")

    @app.timer(interval=settings.reconcile_interval_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def reconcile_deliveries() -> None:
        await survive_outage(runtime.reconcile, "reconcile deliveries")

    # On every worker, not only the leader: each renews the leases of the attempts it acts on.
    @app.timer(interval=leases.renewal_interval(settings.lease_seconds))  # type: ignore[untyped-decorator]
    async def renew_delivery_leases() -> None:
        await survive_outage(runtime.renew_leases, "renew delivery leases")
