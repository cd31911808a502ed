"""The alerts area of the worker (docs/webhooks.md, "Alerts"): every ``SVC_ALERT_EVALUATION_SECONDS`` the
leader evaluates each enabled rule and then sends the notifications owed.

A rule is first evaluated read-only; only one with something to write (new failures, an alert to open or
resolve) takes a turn of the area's group committer. Everything is in the database: a leader that dies
mid-round leaves each rule either evaluated or not, and the next leader goes on from the rules' cursors.
A notification is sent after its row is written and marked SENT after the send: at least once, with the
same ``webhook-id`` on every try, so a receiver can drop a repeat.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import faust
from sqlalchemy.orm import Session

from core.signatures.standard_signing import signed_headers
from core.versions import VersionNotResolved, resolve, selector_of
from schemas.settings import Settings
from sinks.db import resources
from sinks.db.alerts import evaluation, notifications, rules
from sinks.db.alerts.notifications import Due
from sinks.db.alerts.rules import StoredRule
from sinks.handlers import HandlerInvoker
from sinks.iceberg.exceptions import MaskingError
from sinks.iceberg.masking import Masker
from streams.runtime import WorkerRuntime, survive_outage

log = logging.getLogger(__name__)
# Notifications sent per round, at once; the rest wait for the next round.
NOTIFY_BATCH = 32
NOTIFY_TIMEOUT_SECONDS = 10.0


@dataclass
class Round:
    rules: int = 0
    written: int = 0
    opened: int = 0
    resolved: int = 0
    sent: int = 0
    failed: int = 0


@dataclass(frozen=True)
class Destination:
    endpoint: str
    secret: str


class AlertEvaluator(WorkerRuntime):
    """The area's DB engine, committer, producer and handler invoker, started and stopped with the app."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(settings, name="alerts", **kwargs)
        self.masker = Masker(settings.secret_key)
        self.invoker = HandlerInvoker(self.publisher)

    async def on_stop(self) -> None:
        await super().on_stop()
        await self.invoker.stop()

    async def _read(self, read: Any) -> Any:
        def run() -> Any:
            with self.sessions() as session:
                return read(session)

        return await asyncio.to_thread(run)

    async def round_now(self) -> None:
        await self.round(datetime.now(UTC))

    async def round(self, now: datetime) -> Round:
        done = Round()
        for rule in await self._read(rules.enabled_rules):
            if self.should_stop:
                break
            done.rules += 1
            try:
                await self._evaluate(rule, now, done)
            except Exception as exc:
                # One rule's trouble (a concurrent evaluation's alert, say) leaves the others' evaluation.
                log.warning(
                    "an alert rule's evaluation failed; the next round tries again",
                    extra={"rule_id": rule.id, "error": type(exc).__name__},
                )
        await self.notify(now, done)
        if done.written or done.sent or done.failed:
            log.info("alerts evaluated", extra=vars(done))
        return done

    async def _evaluate(self, rule: StoredRule, now: datetime, done: Round) -> None:
        probe = await self._read(partial(evaluation.evaluate, rule=rule, now=now, apply=False))
        if not probe:
            return
        applied = await self.committer.run(partial(evaluation.evaluate, rule=rule, now=now, apply=True))
        if applied:
            done.written += 1
            done.opened += applied.opened
            done.resolved += applied.resolved

    async def notify(self, now: datetime, done: Round) -> None:
        owed = await self._read(partial(notifications.due, now=now, limit=NOTIFY_BATCH))
        outcomes = await asyncio.gather(*(self._send(item) for item in owed))
        for item, error, final in outcomes:
            if error is None:
                done.sent += 1
                await self.committer.run(
                    partial(notifications.sent, notification=item, now=datetime.now(UTC))
                )
                continue
            status = await self.committer.run(
                partial(
                    notifications.failed, notification=item, error=error, now=datetime.now(UTC), final=final
                )
            )
            if status == notifications.FAILED:
                done.failed += 1
                log.warning(
                    "an alert notification was not delivered",
                    extra={"notification_id": item.id, "rule_id": item.rule_id, "error": error},
                )

    def _destination(self, session: Session, item: Due) -> Destination | str:
        """The endpoint and secret to send ``item`` with, or why there is none (final)."""
        handler = resources.registration(session, item.company_id, item.resource_id)
        if handler is None:
            return f"Handler resource {item.resource_id} not found"
        try:
            version = resolve(handler.versions, selector_of(None), f"{handler.type} {handler.id}")
        except VersionNotResolved as exc:
            return str(exc)
        try:
            secret = rules.secret(session, self.masker, item.company_id, item.rule_id)
        except MaskingError:
            return "The rule's signing secret cannot be opened (SVC_SECRET_KEY changed?)"
        if secret is None:
            return "The rule is gone"
        return Destination(version.endpoint, secret)

    async def _send(self, item: Due) -> tuple[Due, str | None, bool]:
        """(the notification, its error or None when sent, whether that error is final)."""
        destination = await self._read(partial(self._destination, item=item))
        if isinstance(destination, str):
            return item, destination, True
        body = item.body.encode()
        headers = signed_headers(destination.secret, item.id, int(time.time()), body)
        outcome = await self.invoker.send_signed(
            destination.endpoint, body, headers, NOTIFY_TIMEOUT_SECONDS, key=item.id
        )
        if outcome.ok:
            return item, None, False
        return item, outcome.error or "not delivered", False


def register(app: faust.App, settings: Settings) -> None:
    evaluator = AlertEvaluator(settings)
    app.service(evaluator)  # type: ignore[arg-type] # an instance is accepted: Faust starts it with the app

    @app.timer(interval=settings.alert_evaluation_seconds, on_leader=True)  # type: ignore[untyped-decorator]
    async def evaluate_alerts() -> None:
        try:
            await survive_outage(evaluator.round_now, "alert evaluation")
        except Exception:
            log.exception("the alert evaluation failed; the next one tries again")
