"""The rules of an alert's life (docs/webhooks.md, "Alerts"). Pure: no I/O.

The evaluator reads failures up to ``known_until`` (a few seconds before now, so an outcome whose commit is
still on its way is read by the next round rather than missed), counts them into the subject's alert, and
resolves an alert once its condition has been clear for the rule's ``resolveAfterSeconds``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.backoff import capped_doubling
from schemas.alerts import (
    NOTIFICATION_OF,
    AlertState,
    ConditionType,
    Notification,
    NotificationData,
    ResolvedBy,
    Subject,
)
from schemas.base import iso_utc

# An outcome is read this long after it ended: its commit (a group commit of the worker) lands well within.
SETTLE = timedelta(seconds=2)
# A notification is tried this many times, the pause doubling from the first to the longest between two.
NOTIFY_ATTEMPTS = 6
NOTIFY_FIRST_PAUSE = 5.0
NOTIFY_LONGEST_PAUSE = 300.0


@dataclass(frozen=True)
class Group:
    """New failures of one subject: how many, the first and the last."""

    subject_id: str
    count: int
    first_at: datetime
    last_at: datetime


def known_until(now: datetime) -> datetime:
    return now - SETTLE


def window_start(known: datetime, within_minutes: int, counted_until: datetime | None) -> datetime:
    """Where a WEBHOOK_FAILURES window begins: ``withinMinutes`` back, but never before the end of what the
    subject's last alert counted, so failures one alert counted never open the next one."""
    start = known - timedelta(minutes=within_minutes)
    return start if counted_until is None else max(start, counted_until)


def opens(condition: ConditionType, count: int, threshold: int) -> bool:
    """Whether ``count`` failures (within the window, for WEBHOOK_FAILURES) open an alert."""
    needed = threshold if condition is ConditionType.WEBHOOK_FAILURES else 1
    return count >= needed


def resolve_due(clear_since: datetime | None, resolve_after_seconds: int, known: datetime) -> bool:
    """Clear since ``clear_since`` (NULL: not clear) for at least the rule's time, as far as ``known``."""
    return clear_since is not None and known - clear_since >= timedelta(seconds=resolve_after_seconds)


def circuit_episode_is_new(since: datetime, last_alert_item_at: datetime | None) -> bool:
    """An OPEN circuit opens an alert only for an opening no alert of the rule has counted yet: an alert
    resolved by a call while the circuit stays open does not open again at the next round."""
    return last_alert_item_at is None or since > last_alert_item_at


def notify_pause(attempts: int) -> float:
    """Seconds before the next try of a notification after ``attempts`` failed tries."""
    return capped_doubling(NOTIFY_FIRST_PAUSE, NOTIFY_LONGEST_PAUSE, attempts)


_WHAT = {
    ConditionType.WEBHOOK_FAILURES: "final delivery failures of webhook {id}",
    ConditionType.CIRCUIT_OPEN: "openings of the circuit of destination {id}",
    ConditionType.SCHEDULED_RUN: "failed or missed runs of scheduled event {id}",
    ConditionType.TABLE_FAILURE: "failed writes or maintenance of table {id}",
}
_STATE = {
    AlertState.OPEN: "opened",
    AlertState.ACKNOWLEDGED: "acknowledged",
    AlertState.RESOLVED: "resolved",
}


def summary(rule_name: str, condition: ConditionType, subject_id: str, state: AlertState, count: int) -> str:
    """One line for a person, without links: the rule, what it counts, the state."""
    return f"Alert '{rule_name}' {_STATE[state]}: {count} {_WHAT[condition].format(id=subject_id)}"


@dataclass(frozen=True)
class AlertFacts:
    """What a notification says of its alert at the moment of the state change."""

    alert_id: str
    rule_id: str
    rule_name: str
    condition: ConditionType
    subject: Subject
    state: AlertState
    count: int
    first_item_at: datetime | None
    last_item_at: datetime | None
    opened_at: datetime
    acknowledged_at: datetime | None
    resolved_at: datetime | None
    resolved_by: ResolvedBy | None


def notification_body(facts: AlertFacts, at: datetime) -> str:
    """The notification's JSON body, fixed when the state changes (every try sends the same bytes)."""
    notification = Notification(
        type=NOTIFICATION_OF[facts.state],
        timestamp=iso_utc(at) or "",
        data=NotificationData(
            alert_id=facts.alert_id,
            rule_id=facts.rule_id,
            rule_name=facts.rule_name,
            condition=facts.condition,
            state=facts.state,
            subject=facts.subject,
            count=facts.count,
            first_item_at=iso_utc(facts.first_item_at),
            last_item_at=iso_utc(facts.last_item_at),
            opened_at=iso_utc(facts.opened_at) or "",
            acknowledged_at=iso_utc(facts.acknowledged_at),
            resolved_at=iso_utc(facts.resolved_at),
            resolved_by=facts.resolved_by,
            summary=summary(facts.rule_name, facts.condition, facts.subject.id, facts.state, facts.count),
        ),
    )
    return json.dumps(notification.model_dump(mode="json", by_alias=True), separators=(",", ":"))
