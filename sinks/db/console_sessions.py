"""The console's sessions (ingress/console/): rows keyed by the digest of the browser's token, shared by
every ingress process, so a browser may reach any of them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from sinks.db.models import ConsoleSession

SWEEP_BATCH = 500


def create(
    session: Session,
    *,
    token_digest: str,
    company_id: str,
    user_id: str,
    key_id: str,
    now: datetime,
    expires_at: datetime,
) -> None:
    session.add(
        ConsoleSession(
            id=token_digest,
            company_id=company_id,
            user_id=user_id,
            key_id=key_id,
            created_at=now,
            expires_at=expires_at,
        )
    )


def find(session: Session, token_digest: str, now: datetime) -> ConsoleSession | None:
    """The live session of this digest; an expired one is not found."""
    row = session.get(ConsoleSession, token_digest)
    if row is None or row.expires_at <= now:
        return None
    return row


def end(session: Session, token_digest: str) -> None:
    session.execute(delete(ConsoleSession).where(ConsoleSession.id == token_digest))


def sweep_expired(session: Session, now: datetime) -> int:
    """Delete up to a batch of expired sessions (each sign-in sweeps one batch: the table stays small)."""
    ids = list(
        session.scalars(select(ConsoleSession.id).where(ConsoleSession.expires_at <= now).limit(SWEEP_BATCH))
    )
    if ids:
        session.execute(delete(ConsoleSession).where(ConsoleSession.id.in_(ids)))
    return len(ids)
