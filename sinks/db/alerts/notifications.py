"""The notifications owed (``alert_notifications``): the leader takes the due ones, sends each, and records
the outcome: SENT, another try later (``next_at``), or FAILED after the last try."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.alerts import NOTIFY_ATTEMPTS, notify_pause
from sinks.db.models import AlertNotification

PENDING, SENT, FAILED = "PENDING", "SENT", "FAILED"
ERROR_CHARS = 1_000


@dataclass(frozen=True)
class Due:
    id: str
    company_id: str
    rule_id: str
    resource_id: str
    body: str
    attempts: int


def due(session: Session, now: datetime, limit: int) -> list[Due]:
    rows = session.execute(
        select(
            AlertNotification.id,
            AlertNotification.company_id,
            AlertNotification.rule_id,
            AlertNotification.resource_id,
            AlertNotification.body,
            AlertNotification.attempts,
        )
        .where(AlertNotification.status == PENDING, AlertNotification.next_at <= now)
        .order_by(AlertNotification.next_at, AlertNotification.id)
        .limit(limit)
    )
    return [Due(*row) for row in rows]


def sent(session: Session, notification: Due, now: datetime) -> None:
    session.execute(
        update(AlertNotification)
        .where(AlertNotification.id == notification.id, AlertNotification.status == PENDING)
        .values(status=SENT, sent_at=now, attempts=notification.attempts + 1, next_at=None, last_error=None)
    )


def failed(session: Session, notification: Due, error: str, now: datetime, *, final: bool = False) -> str:
    """Another try after the backoff, or FAILED once the tries are used up (or ``final``); the new status."""
    attempts = notification.attempts + 1
    last = final or attempts >= NOTIFY_ATTEMPTS
    session.execute(
        update(AlertNotification)
        .where(AlertNotification.id == notification.id, AlertNotification.status == PENDING)
        .values(
            status=FAILED if last else PENDING,
            attempts=attempts,
            next_at=None if last else now + timedelta(seconds=notify_pause(attempts)),
            last_error=error[:ERROR_CHARS],
        )
    )
    return FAILED if last else PENDING
