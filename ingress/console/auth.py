"""Who a console request acts as: the session its cookie names, re-checked against its key every time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from schemas.admin import Principal
from schemas.enums import KeyKind
from sinks.db import console_sessions, tenancy

Sessions = sessionmaker[Session]


@dataclass(frozen=True)
class SignedIn:
    token: str
    poweruser: Principal
    # The same user as their client key authenticates them (schedules and analytics are client API calls);
    # None when the user has no enabled client key.
    client: Principal | None


def start(sessions: Sessions, token_digest: str, principal: Principal, lifetime_seconds: int) -> None:
    now = datetime.now(UTC)
    with sessions.begin() as session:
        console_sessions.sweep_expired(session, now)
        console_sessions.create(
            session,
            token_digest=token_digest,
            company_id=principal.company_id,
            user_id=principal.user_id,
            key_id=principal.key_id,
            now=now,
            expires_at=now + timedelta(seconds=lifetime_seconds),
        )


def resolve(sessions: Sessions, token: str, token_digest: str) -> SignedIn | None:
    """The session's identities now, or None when it expired, was ended, or its key no longer works."""
    with sessions() as session:
        row = console_sessions.find(session, token_digest, datetime.now(UTC))
        if row is None:
            return None
        poweruser = tenancy.principal_of_key(session, row.key_id, KeyKind.POWERUSER)
        if poweruser is None or poweruser.user_id != row.user_id:
            return None
        client = tenancy.client_principal_of(session, row.company_id, row.user_id)
    return SignedIn(token=token, poweruser=poweruser, client=client)


def end(sessions: Sessions, token_digest: str) -> None:
    with sessions.begin() as session:
        console_sessions.end(session, token_digest)
