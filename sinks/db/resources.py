"""Handler resources (agents, tools, managers) and per-user access grants on a company's resources."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from schemas.admin import CreatedResource, Granted, GrantSpec, ResourceSpec
from schemas.enums import AccessLevel, HandlerType
from sinks import credentials
from sinks.db.models import Company, HandlerResource, ResourceGrant, User
from sinks.exceptions import NotFound


def create_resource(session: Session, company_id: str, spec: ResourceSpec) -> CreatedResource:
    if session.get(Company, company_id) is None:
        raise NotFound(f"company {company_id} not found")
    resource = HandlerResource(
        id=credentials.new_id(),
        company_id=company_id,
        type=spec.type.value,
        name=spec.name,
        endpoint=spec.endpoint,
    )
    session.add(resource)
    session.flush()
    return CreatedResource(resource_id=resource.id)


def get_handler(session: Session, company_id: str, resource_id: str) -> HandlerResource | None:
    return session.scalar(
        select(HandlerResource).where(
            HandlerResource.company_id == company_id, HandlerResource.id == resource_id
        )
    )


def list_handlers(
    session: Session, company_id: str, kind: HandlerType | None = None
) -> list[HandlerResource]:
    query = select(HandlerResource).where(HandlerResource.company_id == company_id)
    if kind is not None:
        query = query.where(HandlerResource.type == kind.value)
    return list(session.scalars(query.order_by(HandlerResource.created_at, HandlerResource.id)))


def grant(session: Session, spec: GrantSpec, *, resource_exists: bool | None = None) -> Granted:
    """Set a user's level on a resource of the user's own company (an upsert: the last grant wins).

    ``resource_exists`` lets an area that owns other resource kinds (tables, webhooks) vouch for the id;
    by default the id must name a handler resource of the user's company.
    """
    user = session.get(User, spec.user_id)
    if user is None:
        raise NotFound(f"user {spec.user_id} not found")
    if resource_exists is None:
        resource_exists = get_handler(session, user.company_id, spec.resource_id) is not None
    if not resource_exists:
        raise NotFound(f"resource {spec.resource_id} not found in the user's company")
    existing = session.get(ResourceGrant, (user.id, spec.resource_id))
    if existing is None:
        session.add(
            ResourceGrant(
                user_id=user.id,
                resource_id=spec.resource_id,
                company_id=user.company_id,
                level=spec.level.value,
            )
        )
    else:
        existing.level = spec.level.value
    session.flush()
    return Granted(granted=True)


def access_level(session: Session, company_id: str, user_id: str, resource_id: str) -> AccessLevel | None:
    """A company admin holds ADMIN on every resource of the company; others hold what they were granted."""
    user = session.scalar(select(User).where(User.company_id == company_id, User.id == user_id))
    if user is None:
        return None
    if user.is_admin:
        return AccessLevel.ADMIN
    level = session.scalar(
        select(ResourceGrant.level).where(
            ResourceGrant.company_id == company_id,
            ResourceGrant.user_id == user_id,
            ResourceGrant.resource_id == resource_id,
        )
    )
    return AccessLevel(level) if level is not None else None
