"""Webhook definitions, their dedicated keys and their sharing; every query is scoped by company."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from schemas.enums import AccessLevel
from schemas.webhooks import SharingLevel
from sinks import credentials
from sinks.db.models import User, Webhook, WebhookKey, WebhookShare, utcnow


@dataclass(frozen=True)
class Viewer:
    """The caller as the access rules need it."""

    company_id: str
    user_id: str
    is_admin: bool


def effective_level(
    viewer: Viewer,
    *,
    owner_id: str,
    sharing_level: str,
    company_level: str | None,
    direct_level: str | None,
) -> AccessLevel | None:
    """The caller's access: owner and company admins hold ADMIN; otherwise the best of a direct share and,
    when the webhook is shared with the company, the company level. PRIVATE keeps existing direct shares."""
    if viewer.user_id == owner_id or viewer.is_admin:
        return AccessLevel.ADMIN
    from_company = (
        AccessLevel(company_level) if sharing_level == SharingLevel.COMPANY.value and company_level else None
    )
    direct = AccessLevel(direct_level) if direct_level else None
    return AccessLevel.highest(direct, from_company)


@dataclass(frozen=True)
class Visible:
    webhook: Webhook
    level: AccessLevel


def _direct_level(session: Session, webhook_id: str, viewer: Viewer) -> str | None:
    return session.scalar(
        select(WebhookShare.access_level).where(
            WebhookShare.company_id == viewer.company_id,
            WebhookShare.webhook_id == webhook_id,
            WebhookShare.user_id == viewer.user_id,
        )
    )


def find_visible(session: Session, viewer: Viewer, webhook_id: str) -> Visible | None:
    """The webhook and the caller's level, or None when it does not exist for the caller (same answer)."""
    webhook = session.scalar(
        select(Webhook).where(Webhook.company_id == viewer.company_id, Webhook.id == webhook_id)
    )
    if webhook is None:
        return None
    level = effective_level(
        viewer,
        owner_id=webhook.owner_id,
        sharing_level=webhook.sharing_level,
        company_level=webhook.company_permission_level,
        direct_level=_direct_level(session, webhook.id, viewer),
    )
    return Visible(webhook, level) if level is not None else None


def list_visible(session: Session, viewer: Viewer) -> list[Visible]:
    shared = select(WebhookShare.webhook_id, WebhookShare.access_level).where(
        WebhookShare.company_id == viewer.company_id, WebhookShare.user_id == viewer.user_id
    )
    direct = {row.webhook_id: row.access_level for row in session.execute(shared)}
    query = select(Webhook).where(Webhook.company_id == viewer.company_id)
    if not viewer.is_admin:
        query = query.where(
            or_(
                Webhook.owner_id == viewer.user_id,
                Webhook.sharing_level == SharingLevel.COMPANY.value,
                Webhook.id.in_(list(direct)),
            )
        )
    visible = []
    for webhook in session.scalars(query.order_by(Webhook.created_at.desc(), Webhook.id)):
        level = effective_level(
            viewer,
            owner_id=webhook.owner_id,
            sharing_level=webhook.sharing_level,
            company_level=webhook.company_permission_level,
            direct_level=direct.get(webhook.id),
        )
        if level is not None:
            visible.append(Visible(webhook, level))
    return visible


def create(session: Session, viewer: Viewer, config: dict[str, Any]) -> tuple[Webhook, str]:
    """Create an enabled, private webhook and its dedicated key; returns the full key (shown once)."""
    now = utcnow()
    webhook = Webhook(
        id=credentials.new_id(),
        company_id=viewer.company_id,
        owner_id=viewer.user_id,
        name=str(config["name"]),
        config_json=json.dumps(config, separators=(",", ":")),
        is_enabled=True,
        sharing_level=SharingLevel.PRIVATE.value,
        company_permission_level=None,
        created_at=now,
        updated_at=now,
    )
    session.add(webhook)
    session.flush()
    return webhook, _new_key(session, webhook)


def _new_key(session: Session, webhook: Webhook) -> str:
    issued = credentials.issue_webhook_key()
    session.add(
        WebhookKey(
            id=issued.key_id,
            webhook_id=webhook.id,
            company_id=webhook.company_id,
            secret_digest=issued.secret_digest,
        )
    )
    session.flush()
    return issued.full_key


def api_key_id(session: Session, webhook: Webhook) -> str:
    key_id = session.scalar(
        select(WebhookKey.id).where(
            WebhookKey.company_id == webhook.company_id, WebhookKey.webhook_id == webhook.id
        )
    )
    return key_id or ""


def key_ids(session: Session, webhooks: Sequence[Webhook]) -> dict[str, str]:
    if not webhooks:
        return {}
    rows = session.execute(
        select(WebhookKey.webhook_id, WebhookKey.id).where(
            WebhookKey.company_id == webhooks[0].company_id,
            WebhookKey.webhook_id.in_([w.id for w in webhooks]),
        )
    )
    return {row.webhook_id: row.id for row in rows}


def replace_config(webhook: Webhook, config: dict[str, Any], is_enabled: bool | None) -> None:
    webhook.config_json = json.dumps(config, separators=(",", ":"))
    webhook.name = str(config["name"])
    if is_enabled is not None:
        webhook.is_enabled = is_enabled
    webhook.updated_at = utcnow()


def refresh_key(session: Session, webhook: Webhook) -> str:
    """Replace the dedicated key: the old key id no longer exists, so the old key fails at once."""
    session.execute(
        delete(WebhookKey).where(
            WebhookKey.company_id == webhook.company_id, WebhookKey.webhook_id == webhook.id
        )
    )
    session.flush()
    webhook.updated_at = utcnow()
    return _new_key(session, webhook)


def remove(session: Session, webhook: Webhook) -> None:
    session.delete(webhook)
    session.flush()


def company_users(session: Session, company_id: str, ids: set[str], emails: set[str]) -> list[User]:
    if not ids and not emails:
        return []
    return list(
        session.scalars(
            select(User).where(User.company_id == company_id, or_(User.id.in_(ids), User.email.in_(emails)))
        )
    )


@dataclass(frozen=True)
class DirectShare:
    user_id: str
    user_email: str
    access_level: AccessLevel


def direct_shares(session: Session, webhook: Webhook) -> list[DirectShare]:
    """The members the webhook is shared with directly, by email: kept under every sharing level."""
    rows = session.execute(
        select(User.id, User.email, WebhookShare.access_level)
        .join(User, User.id == WebhookShare.user_id)
        .where(WebhookShare.company_id == webhook.company_id, WebhookShare.webhook_id == webhook.id)
        .order_by(User.email)
    )
    return [DirectShare(user_id, email, AccessLevel(level)) for user_id, email, level in rows]


def set_sharing(
    session: Session,
    webhook: Webhook,
    level: SharingLevel,
    company_level: AccessLevel | None,
    add: dict[str, AccessLevel],
    remove_users: set[str],
) -> None:
    webhook.sharing_level = level.value
    webhook.company_permission_level = (
        company_level.value if level is SharingLevel.COMPANY and company_level else None
    )
    webhook.updated_at = utcnow()
    if remove_users:
        session.execute(
            delete(WebhookShare).where(
                WebhookShare.company_id == webhook.company_id,
                WebhookShare.webhook_id == webhook.id,
                WebhookShare.user_id.in_(remove_users),
            )
        )
    for user_id, access in add.items():
        share = session.get(WebhookShare, (webhook.id, user_id))
        if share is None:
            session.add(
                WebhookShare(
                    webhook_id=webhook.id,
                    user_id=user_id,
                    company_id=webhook.company_id,
                    access_level=access.value,
                )
            )
        else:
            share.access_level = access.value
    session.flush()
