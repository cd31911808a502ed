"""The check of a scheduled event's target (its agent, tool or table) and of the version it would run, for
/create and /update (ingress/scheduled/events.py)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from core.versions import LATEST_PUBLISHED, VersionNotResolved, resolve
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.enums import AccessLevel
from schemas.scheduled.actions import ActionConfig, ActionType, missing_target_message, target_id
from schemas.scheduled.events import FOREIGN_TARGET
from sinks.db import resources
from sinks.db.analytics import tables

__all__ = ["USE_LEVEL", "check_target"]

# Running an agent or tool on a schedule needs at least this level on it; company admins hold ADMIN.
USE_LEVEL = AccessLevel.READ
_NOUN = {ActionType.INVOKE_AGENT: "agent", ActionType.INVOKE_TOOL: "tool", ActionType.UPDATE_SVCDB: "table"}
_KIND = {ActionType.INVOKE_AGENT: "AGENT", ActionType.INVOKE_TOOL: "TOOL"}
_WIRE_CONFIG = {ActionType.INVOKE_AGENT: "agentConfig", ActionType.INVOKE_TOOL: "toolConfig"}


def check_target(
    session: Session, caller: Principal, action: ActionType, config: ActionConfig | None
) -> None:
    resource_id = target_id(action, config)
    if resource_id is None:
        raise ApiError(400, missing_target_message(action))
    denied = f"API key does not have permission to access the target {_NOUN[action]} (ID: {resource_id})"
    if action is ActionType.UPDATE_SVCDB:
        if tables.get(session, caller.company_id, resource_id) is None:
            raise ApiError(400, FOREIGN_TARGET)
        access = tables.access(session, caller.company_id, caller.user_id, caller.is_admin, resource_id)
        if not access.allows("WRITE"):
            raise ApiError(403, denied)
        return
    handler = resources.get_handler(session, caller.company_id, resource_id)
    if handler is None or handler.type != _KIND[action]:
        raise ApiError(400, FOREIGN_TARGET)
    level = resources.access_level(session, caller.company_id, caller.user_id, handler.id)
    if level is None or not level.allows(USE_LEVEL):
        raise ApiError(403, denied)
    _check_version(session, caller, action, config, handler.id)


def _check_version(
    session: Session, caller: Principal, action: ActionType, config: ActionConfig | None, resource_id: str
) -> None:
    """The version the event would run must exist now (the run resolves it again when it fires)."""
    selector = getattr(config, "version", None) or LATEST_PUBLISHED
    versions = resources.versions_of(session, caller.company_id, resource_id)
    try:
        resolve(versions, selector, f"{_KIND[action]} {resource_id}")
    except VersionNotResolved as exc:
        raise ApiError(400, f"{_WIRE_CONFIG[action]}.version: {exc}") from None
