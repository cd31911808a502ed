"""The poweruser API of custom webhooks: ``{base_url}/svc_poweruser/custom-webhooks/...``."""

from __future__ import annotations

import json
import logging
import math

from fastapi import APIRouter
from sqlalchemy import event
from sqlalchemy.orm import Session

from core.tracing import trace_id_of
from core.webhooks.bodies import Body
from ingress.deps import DbSession, MaskerDep, PoweruserCaller, StoreDep
from ingress.errors import ApiError
from ingress.webhooks.config import validated_config
from ingress.webhooks.deps import TriggerTargetsDep
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.enums import AccessLevel
from schemas.webhooks import (
    ApiKeyAnswer,
    CreatedWebhookAnswer,
    CreateWebhookRequest,
    DeletedAnswer,
    DirectShareEntry,
    ExecutionDetails,
    ExecutionEntry,
    ExecutionStatus,
    HistoryAnswer,
    HistoryRequest,
    SharedAnswer,
    ShareRequest,
    SharesAnswer,
    ShareUser,
    UpdateWebhookRequest,
    Webhook,
    WebhookAnswer,
    WebhookIdRequest,
    WebhookListAnswer,
)
from sinks import webhook_bodies
from sinks.db.models import Webhook as WebhookRow
from sinks.db.webhooks import definitions, executions, history_search, replays
from sinks.db.webhooks.executions import HistoryRow
from sinks.db.webhooks.history_search import HistorySearch
from sinks.db.webhooks.secrets import answered
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.objectstore import ObjectStore

log = logging.getLogger(__name__)
router = APIRouter(prefix="/svc_poweruser/custom-webhooks", tags=["custom webhooks"])

NOT_FOUND = "Webhook not found"


def _viewer(caller: Principal) -> definitions.Viewer:
    return definitions.Viewer(company_id=caller.company_id, user_id=caller.user_id, is_admin=caller.is_admin)


def _visible(
    session: DbSession, caller: Principal, webhook_id: str, needed: AccessLevel
) -> definitions.Visible:
    """A webhook the caller cannot see answers exactly like a missing one (401); too low a level is 403."""
    visible = definitions.find_visible(session, _viewer(caller), webhook_id)
    if visible is None:
        raise ApiError(401, NOT_FOUND)
    if not visible.level.allows(needed):
        raise ApiError(403, _DENIED[needed])
    return visible


_DENIED = {
    AccessLevel.READ: "READ access is required to view this webhook",
    AccessLevel.WRITE: "WRITE access is required to update this webhook",
    AccessLevel.ADMIN: "ADMIN access is required for this operation",
}


def _wire(row: WebhookRow, key_id: str, level: AccessLevel) -> Webhook:
    return Webhook(
        id=row.id,
        company_id=row.company_id,
        owner_id=row.owner_id,
        webhook_config=answered(json.loads(row.config_json)),
        api_key_id=key_id,
        is_enabled=row.is_enabled,
        sharing_level=row.sharing_level,
        company_permission_level=row.company_permission_level,
        created_at=iso_utc(row.created_at) or "",
        updated_at=iso_utc(row.updated_at) or "",
        user_access_level=level,
    )


@router.post("/create", response_model=CreatedWebhookAnswer, response_model_by_alias=True)
def create_webhook(
    body: CreateWebhookRequest, caller: PoweruserCaller, session: DbSession, masker: MaskerDep
) -> CreatedWebhookAnswer:
    config = validated_config(session, caller, body.webhook_config, masker=masker)
    row, full_key = definitions.create(session, _viewer(caller), config)
    key_id = full_key.split(":")[1]
    return CreatedWebhookAnswer(webhook=_wire(row, key_id, AccessLevel.ADMIN), api_key=full_key)


@router.post("/get", response_model=WebhookAnswer, response_model_by_alias=True)
def get_webhook(body: WebhookIdRequest, caller: PoweruserCaller, session: DbSession) -> WebhookAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    return WebhookAnswer(
        webhook=_wire(visible.webhook, definitions.api_key_id(session, visible.webhook), visible.level)
    )


@router.post("/get-all", response_model=WebhookListAnswer, response_model_by_alias=True)
def get_all_webhooks(caller: PoweruserCaller, session: DbSession) -> WebhookListAnswer:
    visible = definitions.list_visible(session, _viewer(caller))
    keys = definitions.key_ids(session, [item.webhook for item in visible])
    return WebhookListAnswer(
        webhooks=[_wire(v.webhook, keys.get(v.webhook.id, ""), v.level) for v in visible]
    )


@router.post("/update", response_model=WebhookAnswer, response_model_by_alias=True)
def update_webhook(
    body: UpdateWebhookRequest,
    caller: PoweruserCaller,
    session: DbSession,
    masker: MaskerDep,
    targets: TriggerTargetsDep,
) -> WebhookAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.WRITE)
    stored = json.loads(visible.webhook.config_json)
    config = validated_config(session, caller, body.webhook_config, masker=masker, stored=stored)
    definitions.replace_config(visible.webhook, config, body.is_enabled)
    targets.forget_after_commit(session, visible.webhook.id)
    return WebhookAnswer(
        webhook=_wire(visible.webhook, definitions.api_key_id(session, visible.webhook), visible.level)
    )


def _delete_bodies_after_commit(
    session: DbSession, store: ObjectStore, company_id: str, webhook_id: str
) -> None:
    """The webhook's request bodies kept in the object store go once its rows (payloads included) are gone;
    a failure leaves only space behind, so it is logged and the delete still answers."""

    def delete(_session: Session) -> None:
        try:
            webhook_bodies.delete_webhook_bodies(store, company_id, webhook_id)
        except StorageUnavailable:
            log.warning("a deleted webhook's request bodies were left behind", extra={"webhook": webhook_id})

    event.listen(session, "after_commit", delete, once=True)


@router.post("/delete", response_model=DeletedAnswer, response_model_by_alias=True)
def delete_webhook(
    body: WebhookIdRequest,
    caller: PoweruserCaller,
    session: DbSession,
    targets: TriggerTargetsDep,
    store: StoreDep,
) -> DeletedAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    if visible.webhook.owner_id != caller.user_id:
        raise ApiError(403, "Only the owner can delete this webhook")
    targets.forget_after_commit(session, visible.webhook.id)
    _delete_bodies_after_commit(session, store, caller.company_id, visible.webhook.id)
    definitions.remove(session, visible.webhook)
    return DeletedAnswer(deleted=True)


@router.post("/refresh-api-key", response_model=ApiKeyAnswer, response_model_by_alias=True)
def refresh_api_key(
    body: WebhookIdRequest, caller: PoweruserCaller, session: DbSession, targets: TriggerTargetsDep
) -> ApiKeyAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    if not visible.level.allows(AccessLevel.ADMIN):
        raise ApiError(403, "Only admins can refresh the API key")
    targets.forget_after_commit(session, visible.webhook.id)
    return ApiKeyAnswer(api_key=definitions.refresh_key(session, visible.webhook))


def _resolve_users(session: DbSession, caller: Principal, entries: list[ShareUser]) -> dict[str, ShareUser]:
    """Map each entry to a user of the caller's company; an entry naming nobody there is an error."""
    users = definitions.company_users(
        session,
        caller.company_id,
        {entry.user_id for entry in entries if entry.user_id},
        {entry.user_email.strip().lower() for entry in entries if entry.user_email},
    )
    by_id = {user.id: user for user in users}
    by_email = {user.email: user for user in users}
    resolved: dict[str, ShareUser] = {}
    for entry in entries:
        user = by_id.get(entry.user_id or "") or by_email.get((entry.user_email or "").strip().lower())
        mismatch = (
            user is not None
            and entry.user_id
            and entry.user_email
            and (user.id != entry.user_id or user.email != entry.user_email.strip().lower())
        )
        if user is None or mismatch:
            raise ApiError(400, f"User not found in your company: {entry.user_email or entry.user_id}")
        resolved[user.id] = entry
    return resolved


@router.post("/share", response_model=SharedAnswer, response_model_by_alias=True)
def share_webhook(body: ShareRequest, caller: PoweruserCaller, session: DbSession) -> SharedAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    if not visible.level.allows(AccessLevel.ADMIN):
        raise ApiError(403, "Only admins can share this webhook")
    add = _resolve_users(session, caller, body.users_to_add or [])
    remove = _resolve_users(session, caller, body.users_to_remove or [])
    owner = visible.webhook.owner_id
    if owner in add or owner in remove:
        raise ApiError(400, "The owner always has full access and cannot be added or removed")
    both = set(add) & set(remove)
    if both:
        raise ApiError(400, "A user cannot be both added and removed in one request")
    definitions.set_sharing(
        session,
        visible.webhook,
        body.level,
        body.access_level,
        {user_id: entry.access_level or AccessLevel.READ for user_id, entry in add.items()},
        set(remove),
    )
    return SharedAnswer(updated=True)


@router.post("/get-shares", response_model=SharesAnswer, response_model_by_alias=True)
def get_webhook_shares(body: WebhookIdRequest, caller: PoweruserCaller, session: DbSession) -> SharesAnswer:
    """svc's addition: who a webhook is shared with, for those who may change it (ADMIN, as /share)."""
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    if not visible.level.allows(AccessLevel.ADMIN):
        raise ApiError(403, "Only admins can see who this webhook is shared with")
    webhook = visible.webhook
    return SharesAnswer(
        sharing_level=webhook.sharing_level,
        company_permission_level=webhook.company_permission_level,
        direct_shares=[
            DirectShareEntry(
                user_id=share.user_id, user_email=share.user_email, access_level=share.access_level
            )
            for share in definitions.direct_shares(session, webhook)
        ],
    )


def _entry(row: HistoryRow, body: Body, replay_of: str | None = None) -> ExecutionEntry:
    entry = row.entry
    return ExecutionEntry(
        id=entry.id,
        execution_id=entry.execution_id,
        webhook_id=entry.webhook_id,
        resource_type=entry.resource_type,
        resource_id=entry.resource_id,
        queued_at=iso_utc(entry.queued_at) or "",
        started_at=iso_utc(entry.started_at),
        ended_at=iso_utc(entry.ended_at),
        duration_ms=entry.duration_ms,
        status=ExecutionStatus(entry.status),
        attempt_number=entry.attempt_number,
        waited_ms=entry.waited_ms,
        execution_details=ExecutionDetails(
            webhook_name=entry.webhook_name,
            http_method=entry.http_method,
            source_ip=entry.source_ip,
            request_headers=row.request_headers,
            request_query_params=row.request_query_params,
            request_payload=body.text,
            request_payload_error=body.problem,
            transform_type=entry.transform_type,
            transformed_variables=entry.transformed_variables,
            transform_error=entry.transform_error,
            resource_request_json=entry.resource_request_json,
            resource_response_json=entry.resource_response_json,
            error_message=entry.error_message,
            replay_of=replay_of,
            trace_id=trace_id_of(entry.trace_parent),
        ),
    )


@router.post("/get-execution-history", response_model=HistoryAnswer, response_model_by_alias=True)
def get_execution_history(
    body: HistoryRequest, caller: PoweruserCaller, session: DbSession, store: StoreDep
) -> HistoryAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    limited = False
    if body.searched:
        search = HistorySearch(body.status, body.from_, body.to, body.body_contains, body.execution_id)
        found = history_search.find(session, caller.company_id, visible.webhook.id, search)
        total, limited = len(found.ids), found.limited
        start = body.page * body.size
        rows = executions.rows_of(session, caller.company_id, found.ids[start : start + body.size])
    else:
        total = executions.count(session, visible.webhook.id, body.status)
        rows = executions.history_page(
            session, caller.company_id, visible.webhook.id, body.status, body.page, body.size, total
        )
    originals = replays.originals_of(session, caller.company_id, [row.entry.execution_id for row in rows])
    bodies = webhook_bodies.read_all(store, [row.body for row in rows])
    return HistoryAnswer(
        history=[
            _entry(row, request, originals.get(row.entry.execution_id))
            for row, request in zip(rows, bodies, strict=True)
        ],
        total_pages=math.ceil(total / body.size),
        total_elements=total,
        current_page=body.page,
        search_limited=limited,
    )
