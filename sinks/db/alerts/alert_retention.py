"""Deleting resolved alerts past the history retention, with their items and notifications (cascades), once
no notification of theirs is still to be sent."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, exists, select
from sqlalchemy.orm import Session

from sinks.db.models import Alert, AlertNotification

_PENDING = "PENDING"


def _expired(company_id: str, cutoff: datetime) -> Select[Any]:
    owed = exists().where(AlertNotification.alert_id == Alert.id, AlertNotification.status == _PENDING)
    return (
        select(Alert.id)
        .where(
            Alert.company_id == company_id,
            Alert.opened_at < cutoff,
            Alert.state == "RESOLVED",
            Alert.resolved_at < cutoff,
            ~owed,
        )
        .order_by(Alert.opened_at)
    )


def any_expired(session: Session, company_id: str, cutoff: datetime) -> bool:
    return session.scalar(_expired(company_id, cutoff).limit(1)) is not None


def delete_expired(session: Session, company_id: str, cutoff: datetime, limit: int) -> int:
    """Up to ``limit`` of the company's alerts resolved before ``cutoff``, oldest first."""
    due = _expired(company_id, cutoff).limit(limit).scalar_subquery()
    result = session.execute(
        delete(Alert).where(Alert.id.in_(due)).execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
