"""Handler resources (agents, tools, managers), their versions, and per-user access grants on a company's
resources."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.versions import Version
from schemas.admin import (
    CreatedResource,
    Granted,
    GrantSpec,
    ResourceLimits,
    ResourceLimitsSpec,
    ResourceSpec,
    VersionSpec,
    VersionStateSpec,
)
from schemas.enums import AccessLevel, HandlerType
from schemas.versions import VersionState
from sinks import credentials
from sinks.db.models import Company, HandlerResource, ResourceGrant, ResourceVersion, User
from sinks.exceptions import NotFound


@dataclass(frozen=True)
class Registration:
    """A handler as a worker resolves it: its kind and every version (a plain snapshot, safe to keep)."""

    id: str
    company_id: str
    type: str
    versions: tuple[Version, ...]


def create_resource(session: Session, company_id: str, spec: ResourceSpec) -> CreatedResource:
    if session.get(Company, company_id) is None:
        raise NotFound(f"company {company_id} not found")
    resource = HandlerResource(
        id=credentials.new_id(),
        company_id=company_id,
        type=spec.type.value,
        name=spec.name,
        endpoint=spec.endpoint,
        max_concurrency=spec.max_concurrency,
        max_per_second=spec.max_per_second,
    )
    session.add(resource)
    session.flush()
    # The registration's endpoint is its first published version: configs without a version object run it.
    session.add(
        ResourceVersion(
            resource_id=resource.id,
            version_number=1,
            state=VersionState.PUBLISHED.value,
            endpoint=spec.endpoint,
        )
    )
    session.flush()
    return CreatedResource(resource_id=resource.id)


def update_limits(session: Session, spec: ResourceLimitsSpec) -> ResourceLimits:
    resource = session.get(HandlerResource, spec.resource_id)
    if resource is None:
        raise NotFound(f"resource {spec.resource_id} not found")
    if spec.max_concurrency is not None:
        resource.max_concurrency = spec.max_concurrency
    if spec.no_rate_limit:
        resource.max_per_second = None
    elif spec.max_per_second is not None:
        resource.max_per_second = spec.max_per_second
    session.flush()
    return ResourceLimits(
        resource_id=resource.id,
        max_concurrency=resource.max_concurrency,
        max_per_second=resource.max_per_second,
    )


def create_version(session: Session, spec: VersionSpec) -> ResourceVersion:
    """The resource's next version (one above its highest). Two at once may pick the same number: the
    second insert then fails on the primary key instead of overwriting the first."""
    if session.get(HandlerResource, spec.resource_id) is None:
        raise NotFound(f"resource {spec.resource_id} not found")
    highest = session.scalar(
        select(func.max(ResourceVersion.version_number)).where(
            ResourceVersion.resource_id == spec.resource_id
        )
    )
    version = ResourceVersion(
        resource_id=spec.resource_id,
        version_number=(highest or 0) + 1,
        state=spec.state.value,
        endpoint=spec.endpoint,
    )
    session.add(version)
    session.flush()
    return version


def set_version_state(session: Session, spec: VersionStateSpec) -> ResourceVersion:
    """Only this version changes: publishing v2 leaves v1 PUBLISHED, and the highest PUBLISHED number is the
    one configs without a ``versionNumber`` run (archiving v2 again rolls them back to v1)."""
    if session.get(HandlerResource, spec.resource_id) is None:
        raise NotFound(f"resource {spec.resource_id} not found")
    version = session.get(ResourceVersion, (spec.resource_id, spec.version_number))
    if version is None:
        raise NotFound(f"resource {spec.resource_id} has no version {spec.version_number}")
    version.state = spec.state.value
    session.flush()
    return version


def versions_of(session: Session, company_id: str, resource_id: str) -> tuple[Version, ...]:
    """Every version of the company's resource, lowest number first (none for another company's id)."""
    rows = session.execute(
        select(ResourceVersion.version_number, ResourceVersion.state, ResourceVersion.endpoint)
        .join(HandlerResource, HandlerResource.id == ResourceVersion.resource_id)
        .where(HandlerResource.company_id == company_id, ResourceVersion.resource_id == resource_id)
        .order_by(ResourceVersion.version_number)
    )
    return tuple(Version(number, VersionState(state), endpoint) for number, state, endpoint in rows)


def registration(session: Session, company_id: str, resource_id: str) -> Registration | None:
    handler = get_handler(session, company_id, resource_id)
    if handler is None:
        return None
    return Registration(
        id=handler.id,
        company_id=handler.company_id,
        type=handler.type,
        versions=versions_of(session, company_id, resource_id),
    )


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
