"""One rule's evaluation: the failures since its cursor counted into its alerts, new alerts opened, clear
ones resolved by themselves (core/alerts.py has the rules).

``evaluate(..., apply=False)`` only reads and says whether there is anything to write, so a rule with nothing
new costs its indexed reads and no write lock. With ``apply=True`` (a unit of the evaluator's group
committer) it first moves the rule's cursor by compare-and-set: an evaluation that finds it moved (another
leader's, or a change of the rule) writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from core.alerts import Group, circuit_episode_is_new, known_until, opens, resolve_due, window_start
from schemas.alerts import MAX_ITEMS, ConditionType, ItemKind, ResolvedBy, WebhookFailures
from sinks.db.alerts import findings, lifecycle, rules
from sinks.db.alerts.findings import Item
from sinks.db.alerts.rules import StoredRule
from sinks.db.models import Alert


@dataclass
class Evaluated:
    opened: int = 0
    counted: int = 0
    resolved: int = 0
    changes: int = 0

    def __bool__(self) -> bool:
        return self.changes > 0


def evaluate(session: Session, rule: StoredRule, now: datetime, *, apply: bool) -> Evaluated:
    if apply and not rules.advance(session, rule.id, rule.checked_until, known_until(now)):
        return Evaluated()
    if rule.condition_type is ConditionType.CIRCUIT_OPEN:
        return _circuits(session, rule, now, apply)
    return _failures(session, rule, now, apply)


def _failures(session: Session, rule: StoredRule, now: datetime, apply: bool) -> Evaluated:
    known = known_until(now)
    done = Evaluated()
    condition = rule.condition_type
    alerts = lifecycle.unresolved(session, rule.id)
    new = findings.groups(session, condition, rule.company_id, rule.subject_id, rule.checked_until, known)
    if new:
        done.changes += 1  # the cursor moves past them, whatever they open
    for group in new:
        alert = alerts.pop(group.subject_id, None)
        if alert is not None:
            done.counted += group.count
            if apply:
                _count_more(session, alert, group, rule.checked_until, known)
            continue
        opened = _window(session, rule, group, known)
        if opened is None:
            continue
        done.opened += 1
        if apply:
            start, window = opened
            alert = lifecycle.open_alert(
                session,
                rule,
                group.subject_id,
                window.count,
                window.first_at,
                window.last_at,
                counted_until=known,
                clear_since=window.last_at,
                now=now,
            )
            lifecycle.add_items(
                session, alert, _items(session, rule, group.subject_id, start, known, MAX_ITEMS)
            )
    for alert in alerts.values():  # not failing this round
        if resolve_due(alert.clear_since, rule.resolve_after_seconds, known):
            done.resolved += 1
            done.changes += 1
            if apply:
                lifecycle.resolve(session, rule, alert, ResolvedBy.CLEAR, now)
    done.changes += done.opened
    return done


def _window(
    session: Session, rule: StoredRule, group: Group, known: datetime
) -> tuple[datetime, Group] | None:
    """Where the subject's new alert starts counting and what it counts, if its failures open one."""
    if not isinstance(rule.condition, WebhookFailures):
        return (rule.checked_until, group) if opens(rule.condition_type, group.count, 1) else None
    last = lifecycle.last_of(session, rule.id, group.subject_id)
    start = window_start(known, rule.condition.within_minutes, None if last is None else last.counted_until)
    found = findings.groups(session, rule.condition_type, rule.company_id, group.subject_id, start, known)
    window = next((item for item in found if item.subject_id == group.subject_id), None)
    if window is None or not opens(rule.condition_type, window.count, rule.condition.count):
        return None
    return start, window


def _count_more(session: Session, alert: Alert, group: Group, after: datetime, known: datetime) -> None:
    room = MAX_ITEMS - lifecycle.listed(session, alert.id)
    more = findings.items(
        session, ConditionType(alert.condition_type), alert.company_id, group.subject_id, after, known, room
    )
    if lifecycle.count_more(session, alert, group.count, group.last_at, known, clear=True):
        lifecycle.add_items(session, alert, more)


def _items(
    session: Session, rule: StoredRule, subject_id: str, after: datetime, until: datetime, limit: int
) -> list[Item]:
    return findings.items(session, rule.condition_type, rule.company_id, subject_id, after, until, limit)


def _circuits(session: Session, rule: StoredRule, now: datetime, apply: bool) -> Evaluated:
    """A circuit OPEN for ``forSeconds`` opens its alert; the alert is clear from the moment the circuit is
    seen closed (or half open), and failing again if it opens again before the alert resolved."""
    done = Evaluated()
    condition = rule.condition
    hold = getattr(condition, "for_seconds", 0)
    alerts = lifecycle.unresolved(session, rule.id)
    for circuit in findings.open_circuits(session, rule.company_id, rule.subject_id):
        alert = alerts.pop(circuit.resource_id, None)
        if alert is not None:
            reopened = alert.last_item_at is None or circuit.since > alert.last_item_at
            if alert.clear_since is None and not reopened:
                continue
            done.changes += 1
            if apply:
                if reopened:
                    lifecycle.count_more(session, alert, 1, circuit.since, now, clear=False)
                else:
                    lifecycle.set_clear_since(session, alert, None)
            continue
        if (now - circuit.since).total_seconds() < hold:
            continue
        last = lifecycle.last_of(session, rule.id, circuit.resource_id)
        if not circuit_episode_is_new(circuit.since, None if last is None else last.last_item_at):
            continue
        done.opened += 1
        done.changes += 1
        if apply:
            alert = lifecycle.open_alert(
                session, rule, circuit.resource_id, 1, circuit.since, circuit.since, now, None, now
            )
            item = Item(
                circuit.resource_id,
                circuit.resource_id,
                ItemKind.DESTINATION,
                circuit.since,
                circuit.last_error,
            )
            lifecycle.add_items(session, alert, [item])
    for alert in alerts.values():  # circuits no longer OPEN
        if alert.clear_since is None:
            done.changes += 1
            if apply:
                lifecycle.set_clear_since(session, alert, now)
        elif resolve_due(alert.clear_since, rule.resolve_after_seconds, now):
            done.changes += 1
            done.resolved += 1
            if apply:
                lifecycle.resolve(session, rule, alert, ResolvedBy.CLEAR, now)
    return done
