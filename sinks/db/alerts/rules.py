"""A company's alert rules (``alert_rules``): stored, listed, changed and deleted in the company's name only.

A rule's signing secret is a random 32-byte key in the ``whsec_`` form, answered once and kept sealed with
the service's key (``sinks/iceberg/masking.Masker`` under a context of its own per company, as a webhook's
verification secret is: ``sinks/db/webhooks/secrets.py``), because the leader must sign with it again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from core.signatures.standard_signing import secret_of
from schemas.alerts import (
    Condition,
    ConditionType,
    CreateRuleRequest,
    UpdateRuleRequest,
    subject_of,
)
from schemas.ids import new_id
from sinks.db.models import AlertRule, AnalyticsTable, HandlerResource, ScheduledEvent, Webhook
from sinks.db.webhooks.secrets import Masker

SECRET_BYTES = 32
CONDITION = TypeAdapter[Condition](Condition)


@dataclass(frozen=True)
class StoredRule:
    id: str
    company_id: str
    name: str
    condition: Condition
    resolve_after_seconds: int
    notify: str | None
    enabled: bool
    checked_until: datetime
    created_at: datetime
    updated_at: datetime

    @property
    def condition_type(self) -> ConditionType:
        return self.condition.type

    @property
    def subject_id(self) -> str | None:
        return subject_of(self.condition)


def _context(company_id: str) -> str:
    return f"alert-notifications/{company_id}"


def new_secret() -> str:
    return secret_of(secrets.token_bytes(SECRET_BYTES))


def stored(row: AlertRule) -> StoredRule:
    return StoredRule(
        id=row.id,
        company_id=row.company_id,
        name=row.name,
        condition=CONDITION.validate_json(row.condition_json),
        resolve_after_seconds=row.resolve_after_seconds,
        notify=row.notify_resource_id,
        enabled=row.enabled,
        checked_until=row.checked_until,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def count(session: Session, company_id: str) -> int:
    return int(session.scalar(select(func.count()).where(AlertRule.company_id == company_id)) or 0)


def create(
    session: Session, masker: Masker, company_id: str, body: CreateRuleRequest, now: datetime
) -> tuple[StoredRule, str]:
    """The new rule and its secret (shown once). Failures before ``now`` do not count for it."""
    secret = new_secret()
    row = AlertRule(
        id=new_id(),
        company_id=company_id,
        name=body.name,
        condition_type=body.condition.type.value,
        condition_json=CONDITION.dump_json(body.condition, by_alias=True).decode(),
        subject_id=subject_of(body.condition),
        resolve_after_seconds=body.resolve_after_seconds,
        notify_resource_id=body.notify,
        sealed_secret=masker.encrypt(_context(company_id), secret),
        enabled=body.enabled,
        checked_until=now,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    session.flush()
    return stored(row), secret


def find(session: Session, company_id: str, rule_id: str) -> AlertRule | None:
    return session.scalar(
        select(AlertRule).where(AlertRule.company_id == company_id, AlertRule.id == rule_id)
    )


def of_company(session: Session, company_id: str) -> list[StoredRule]:
    rows = session.scalars(
        select(AlertRule)
        .where(AlertRule.company_id == company_id)
        .order_by(AlertRule.created_at, AlertRule.id)
    )
    return [stored(row) for row in rows]


def update_rule(
    session: Session, masker: Masker, row: AlertRule, body: UpdateRuleRequest, now: datetime
) -> tuple[StoredRule, str | None]:
    """The changed rule, and its new secret when the update rotates it. A new condition counts failures from
    ``now`` on; its alerts so far stay as they are."""
    changed = body.model_fields_set
    if body.name is not None:
        row.name = body.name
    if body.condition is not None:
        row.condition_type = body.condition.type.value
        row.condition_json = CONDITION.dump_json(body.condition, by_alias=True).decode()
        row.subject_id = subject_of(body.condition)
        row.checked_until = now
    if body.resolve_after_seconds is not None:
        row.resolve_after_seconds = body.resolve_after_seconds
    if "notify" in changed:
        row.notify_resource_id = body.notify
    if body.enabled is not None:
        if body.enabled and not row.enabled:
            row.checked_until = now  # what failed while it was off does not open alerts now
        row.enabled = body.enabled
    secret = None
    if body.rotate_secret:
        secret = new_secret()
        row.sealed_secret = masker.encrypt(_context(row.company_id), secret)
    row.updated_at = now
    session.flush()
    return stored(row), secret


def delete_rule(session: Session, company_id: str, rule_id: str) -> bool:
    """The rule with its alerts, their items and notifications (the foreign keys cascade)."""
    done = session.execute(
        delete(AlertRule).where(AlertRule.company_id == company_id, AlertRule.id == rule_id)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]


def enabled_rules(session: Session) -> list[StoredRule]:
    """Every enabled rule, for the evaluator's round."""
    rows = session.scalars(select(AlertRule).where(AlertRule.enabled.is_(True)).order_by(AlertRule.id))
    return [stored(row) for row in rows]


def secret(session: Session, masker: Masker, company_id: str, rule_id: str) -> str | None:
    """The rule's signing secret opened, or None when the rule is gone; raises ``MaskingError`` when the
    sealed value cannot be opened (``SVC_SECRET_KEY`` changed)."""
    sealed = session.scalar(
        select(AlertRule.sealed_secret).where(AlertRule.company_id == company_id, AlertRule.id == rule_id)
    )
    return None if sealed is None else masker.decrypt(_context(company_id), sealed)


def advance(session: Session, rule_id: str, seen: datetime, until: datetime) -> bool:
    """Compare-and-set of the rule's cursor: False when another evaluation moved it since ``seen`` was read
    (that evaluation has counted what this one would)."""
    done = session.execute(
        update(AlertRule)
        .where(AlertRule.id == rule_id, AlertRule.checked_until == seen, AlertRule.enabled.is_(True))
        .values(checked_until=until)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]


_SUBJECTS: dict[ConditionType, Any] = {
    ConditionType.WEBHOOK_FAILURES: Webhook,
    ConditionType.CIRCUIT_OPEN: HandlerResource,
    ConditionType.SCHEDULED_RUN: ScheduledEvent,
    ConditionType.TABLE_FAILURE: AnalyticsTable,
}


def subject_exists(session: Session, company_id: str, condition: ConditionType, subject_id: str) -> bool:
    """Whether the company has this webhook, handler resource, scheduled event or table."""
    model = _SUBJECTS[condition]
    query = select(model.id).where(model.company_id == company_id, model.id == subject_id)
    if model is ScheduledEvent:
        query = query.where(ScheduledEvent.deleted_at.is_(None))
    return session.scalar(query) is not None
