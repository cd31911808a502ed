"""An alert's life in the metadata DB: opened, counting more failures, clear, resolved; acknowledged and
resolved by a call. Every state change is compare-and-set on the current state and writes the
notification it owes in the same transaction (one per alert and state: a unique pair), so a crash between
the two is impossible and a second evaluation of the same change writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.alerts import AlertFacts, notification_body
from schemas.alerts import (
    MAX_ITEMS,
    SUBJECT_OF,
    AlertState,
    ConditionType,
    ResolvedBy,
    Subject,
)
from schemas.ids import new_id
from sinks.db.alerts.findings import Item
from sinks.db.alerts.rules import StoredRule
from sinks.db.models import Alert, AlertItem, AlertNotification

_ITEMS = cast(Table, AlertItem.__table__)
_NOTIFICATIONS = cast(Table, AlertNotification.__table__)
UNRESOLVED = (AlertState.OPEN.value, AlertState.ACKNOWLEDGED.value)


@dataclass(frozen=True)
class Last:
    """What the latest alert of a rule and subject counted, resolved or not."""

    counted_until: datetime
    last_item_at: datetime | None


def _dialect(session: Session) -> Any:
    return postgresql if session.get_bind().dialect.name == "postgresql" else sqlite


def unresolved(session: Session, rule_id: str) -> dict[str, Alert]:
    rows = session.scalars(select(Alert).where(Alert.rule_id == rule_id, Alert.state.in_(UNRESOLVED)))
    return {row.subject_id: row for row in rows}


def last_of(session: Session, rule_id: str, subject_id: str) -> Last | None:
    row = session.execute(
        select(Alert.counted_until, Alert.last_item_at)
        .where(Alert.rule_id == rule_id, Alert.subject_id == subject_id)
        .order_by(Alert.opened_at.desc())
        .limit(1)
    ).first()
    return None if row is None else Last(row[0], row[1])


def listed(session: Session, alert_id: str) -> int:
    return int(session.scalar(select(func.count()).where(AlertItem.alert_id == alert_id)) or 0)


def add_items(session: Session, alert: Alert, items: list[Item]) -> None:
    """Items beyond ``MAX_ITEMS`` per alert are counted, not listed; an item listed already stays once."""
    if not items:
        return
    statement = (
        _dialect(session).insert(_ITEMS).on_conflict_do_nothing(index_elements=["alert_id", "item_id"])
    )
    session.execute(
        statement,
        [
            {
                "alert_id": alert.id,
                "item_id": item.item_id,
                "company_id": alert.company_id,
                "kind": item.kind.value,
                "at": item.at,
                "detail": item.detail,
            }
            for item in items
        ],
    )


def open_alert(
    session: Session,
    rule: StoredRule,
    subject_id: str,
    count: int,
    first_at: datetime | None,
    last_at: datetime | None,
    counted_until: datetime,
    clear_since: datetime | None,
    now: datetime,
) -> Alert:
    alert = Alert(
        id=new_id(),
        company_id=rule.company_id,
        rule_id=rule.id,
        condition_type=rule.condition_type.value,
        subject_kind=SUBJECT_OF[rule.condition_type].value,
        subject_id=subject_id,
        state=AlertState.OPEN.value,
        item_count=count,
        first_item_at=first_at,
        last_item_at=last_at,
        counted_until=counted_until,
        clear_since=clear_since,
        opened_at=now,
    )
    session.add(alert)
    session.flush()
    owe_notification(session, rule, alert, now)
    return alert


def count_more(
    session: Session, alert: Alert, count: int, last_at: datetime, counted_until: datetime, clear: bool
) -> bool:
    """More failures for an alert not resolved meanwhile (False: it was, and counts nothing more)."""
    values: dict[str, Any] = {
        "item_count": Alert.item_count + count,
        "last_item_at": last_at,
        "counted_until": counted_until,
        "clear_since": last_at if clear else None,
    }
    if alert.first_item_at is None:
        values["first_item_at"] = last_at
    done = session.execute(
        update(Alert).where(Alert.id == alert.id, Alert.state.in_(UNRESOLVED)).values(**values)
    )
    session.expire(alert)
    return bool(done.rowcount)  # type: ignore[attr-defined]


def set_clear_since(session: Session, alert: Alert, since: datetime | None) -> None:
    session.execute(
        update(Alert).where(Alert.id == alert.id, Alert.state.in_(UNRESOLVED)).values(clear_since=since)
    )
    session.expire(alert)


def resolve(session: Session, rule: StoredRule | None, alert: Alert, by: ResolvedBy, now: datetime) -> bool:
    """OPEN or ACKNOWLEDGED → RESOLVED; False when it was resolved already."""
    done = session.execute(
        update(Alert)
        .where(Alert.id == alert.id, Alert.state.in_(UNRESOLVED))
        .values(state=AlertState.RESOLVED.value, resolved_at=now, resolved_by=by.value)
    )
    session.expire(alert)
    if not done.rowcount:  # type: ignore[attr-defined]
        return False
    if rule is not None:
        owe_notification(session, rule, alert, now)
    return True


def acknowledge(session: Session, rule: StoredRule | None, alert: Alert, now: datetime) -> bool:
    """OPEN → ACKNOWLEDGED; False when it was not OPEN."""
    done = session.execute(
        update(Alert)
        .where(Alert.id == alert.id, Alert.state == AlertState.OPEN.value)
        .values(state=AlertState.ACKNOWLEDGED.value, acknowledged_at=now)
    )
    session.expire(alert)
    if not done.rowcount:  # type: ignore[attr-defined]
        return False
    if rule is not None:
        owe_notification(session, rule, alert, now)
    return True


def facts(rule: StoredRule, alert: Alert) -> AlertFacts:
    return AlertFacts(
        alert_id=alert.id,
        rule_id=rule.id,
        rule_name=rule.name,
        condition=ConditionType(alert.condition_type),
        subject=Subject(kind=SUBJECT_OF[ConditionType(alert.condition_type)], id=alert.subject_id),
        state=AlertState(alert.state),
        count=alert.item_count,
        first_item_at=alert.first_item_at,
        last_item_at=alert.last_item_at,
        opened_at=alert.opened_at,
        acknowledged_at=alert.acknowledged_at,
        resolved_at=alert.resolved_at,
        resolved_by=ResolvedBy(alert.resolved_by) if alert.resolved_by else None,
    )


def owe_notification(session: Session, rule: StoredRule, alert: Alert, now: datetime) -> None:
    """The notification of the alert's current state, when the rule notifies; once per alert and state."""
    if rule.notify is None:
        return
    session.execute(
        _dialect(session)
        .insert(_NOTIFICATIONS)
        .values(
            id=new_id(),
            company_id=alert.company_id,
            alert_id=alert.id,
            rule_id=rule.id,
            alert_state=alert.state,
            resource_id=rule.notify,
            body=notification_body(facts(rule, alert), now),
            status="PENDING",
            attempts=0,
            next_at=now,
            created_at=now,
        )
        .on_conflict_do_nothing(index_elements=["alert_id", "alert_state"])
    )


def find(session: Session, company_id: str, alert_id: str) -> Alert | None:
    return session.scalar(select(Alert).where(Alert.company_id == company_id, Alert.id == alert_id))


def items_of(session: Session, company_id: str, alert_id: str) -> list[AlertItem]:
    return list(
        session.scalars(
            select(AlertItem)
            .where(AlertItem.company_id == company_id, AlertItem.alert_id == alert_id)
            .order_by(AlertItem.at, AlertItem.item_id)
            .limit(MAX_ITEMS)
        )
    )


def page(
    session: Session,
    company_id: str,
    state: AlertState | None,
    rule_id: str | None,
    before: tuple[datetime, str] | None,
    limit: int,
) -> list[Alert]:
    """The company's alerts, the most recently opened first, after the cursor ``before`` (opened, id)."""
    query = select(Alert).where(Alert.company_id == company_id)
    if state is not None:
        query = query.where(Alert.state == state.value)
    if rule_id is not None:
        query = query.where(Alert.rule_id == rule_id)
    if before is not None:
        opened, alert_id = before
        query = query.where(
            (Alert.opened_at < opened) | ((Alert.opened_at == opened) & (Alert.id < alert_id))
        )
    return list(session.scalars(query.order_by(Alert.opened_at.desc(), Alert.id.desc()).limit(limit)))
