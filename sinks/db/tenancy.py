"""Companies, users and their keys. Every lookup that serves a request is scoped by company."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from schemas.admin import CreatedCompany, CreatedUser, Principal
from schemas.enums import KeyKind
from sinks import credentials
from sinks.db.models import ApiKey, Company, User
from sinks.exceptions import Conflict, NotFound


def _issue_keys(session: Session, company_id: str, user_id: str) -> tuple[str, str]:
    client = credentials.issue_client_key()
    poweruser = credentials.issue_poweruser_key()
    for issued, kind in ((client, KeyKind.CLIENT), (poweruser, KeyKind.POWERUSER)):
        session.add(
            ApiKey(
                id=issued.key_id,
                company_id=company_id,
                user_id=user_id,
                kind=kind.value,
                secret_digest=issued.secret_digest,
                enabled=True,
            )
        )
    return client.full_key, poweruser.full_key


def _normalise_email(email: str) -> str:
    email = email.strip().lower()
    local, at, domain = email.partition("@")
    if not at or not local or "." not in domain or len(email) > 320 or " " in email:
        raise ValueError(f"invalid email address: {email!r}")
    return email


def create_company(session: Session, name: str, admin_email: str) -> CreatedCompany:
    name = name.strip()
    if not name or len(name) > 200:
        raise ValueError("company name must be 1 to 200 characters")
    email = _normalise_email(admin_email)
    company = Company(id=credentials.new_id(), name=name)
    admin = User(
        id=credentials.new_id(), company_id=company.id, email=email, is_admin=True, is_primary_admin=True
    )
    session.add(company)
    session.flush()
    session.add(admin)
    session.flush()
    client_key, poweruser_key = _issue_keys(session, company.id, admin.id)
    return CreatedCompany(
        company_id=company.id, user_id=admin.id, client_api_key=client_key, poweruser_key=poweruser_key
    )


def create_user(session: Session, company_id: str, email: str, *, is_admin: bool = False) -> CreatedUser:
    if session.get(Company, company_id) is None:
        raise NotFound(f"company {company_id} not found")
    email = _normalise_email(email)
    taken = session.scalar(select(User.id).where(User.company_id == company_id, User.email == email))
    if taken is not None:
        raise Conflict(f"user {email} already exists in company {company_id}")
    user = User(id=credentials.new_id(), company_id=company_id, email=email, is_admin=is_admin)
    session.add(user)
    session.flush()
    client_key, poweruser_key = _issue_keys(session, company_id, user.id)
    return CreatedUser(user_id=user.id, client_api_key=client_key, poweruser_key=poweruser_key)


def _principal(key: ApiKey, user: User) -> Principal:
    return Principal(
        company_id=user.company_id,
        user_id=user.id,
        email=user.email,
        is_admin=user.is_admin,
        key_id=key.id,
        key_kind=key.kind,
    )


def _principal_for(session: Session, key: ApiKey | None, kind: KeyKind) -> Principal | None:
    if key is None or not key.enabled or key.kind != kind.value:
        return None
    user = session.scalar(select(User).where(User.id == key.user_id, User.company_id == key.company_id))
    return _principal(key, user) if user is not None else None


def authenticate_client_key(session: Session, presented: str) -> Principal | None:
    """Client keys are opaque: look them up by the digest of the whole value (a 256-bit secret)."""
    if not credentials.looks_like_client_key(presented):
        return None
    key = session.scalar(select(ApiKey).where(ApiKey.secret_digest == credentials.digest(presented)))
    return _principal_for(session, key, KeyKind.CLIENT)


def authenticate_poweruser_key(session: Session, presented: str) -> Principal | None:
    parsed = credentials.parse_poweruser_key(presented)
    if parsed is None:
        return None
    key_id, secret = parsed
    key = session.get(ApiKey, key_id)
    if key is None or not credentials.same_digest(key.secret_digest, secret):
        return None
    return _principal_for(session, key, KeyKind.POWERUSER)


def get_user(session: Session, company_id: str, user_id: str) -> User | None:
    return session.scalar(select(User).where(User.company_id == company_id, User.id == user_id))


def find_user_by_email(session: Session, company_id: str, email: str) -> User | None:
    email = email.strip().lower()
    return session.scalar(select(User).where(User.company_id == company_id, User.email == email))


def primary_admin(session: Session, company_id: str) -> User:
    user = session.scalar(select(User).where(User.company_id == company_id, User.is_primary_admin.is_(True)))
    if user is None:
        raise NotFound(f"company {company_id} has no primary admin")
    return user


def principal_of_key(session: Session, key_id: str, kind: KeyKind) -> Principal | None:
    """Who an already verified key acts as now: None once the key is disabled or gone (a console session
    re-checks its sign-in key this way on every request)."""
    return _principal_for(session, session.get(ApiKey, key_id), kind)


def client_principal_of(session: Session, company_id: str, user_id: str) -> Principal | None:
    """The user as their oldest enabled client key authenticates them, or None when they have none."""
    key = session.scalar(
        select(ApiKey)
        .where(
            ApiKey.company_id == company_id,
            ApiKey.user_id == user_id,
            ApiKey.kind == KeyKind.CLIENT.value,
            ApiKey.enabled.is_(True),
        )
        .order_by(ApiKey.created_at, ApiKey.id)
        .limit(1)
    )
    return _principal_for(session, key, KeyKind.CLIENT)
