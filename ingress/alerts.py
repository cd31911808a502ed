"""``/svc_poweruser/alerts/{get-all,get,acknowledge,resolve,replay}``: the alerts of a company's rules
(docs/webhooks.md, "Alerts").

Company admins only; an alert of another company answers as a missing one. Acknowledging or resolving is
compare-and-set on the alert's state and owes the rule's notification in the same transaction. ``replay``
re-runs the failed deliveries a WEBHOOK_FAILURES alert lists through ``/custom-webhooks/replay`` itself.
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime

from fastapi import APIRouter
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from ingress.alert_rules import admin
from ingress.deps import (
    CommitterDep,
    DbSession,
    MaskerDep,
    PoweruserCaller,
    PublisherDep,
    SessionsDep,
    SettingsDep,
    StoreDep,
)
from ingress.errors import ApiError
from ingress.webhooks.replay import replay_webhook
from schemas.alerts import (
    Alert,
    AlertAnswer,
    AlertIdRequest,
    AlertItem,
    AlertReplayRequest,
    AlertsAnswer,
    AlertsRequest,
    AlertState,
    ConditionType,
    ItemKind,
    ResolvedBy,
    Subject,
    SubjectKind,
)
from schemas.base import iso_utc
from schemas.replay import ReplayAnswer, ReplayRequest
from sinks.db.alerts import lifecycle, rules
from sinks.db.alerts.rules import StoredRule
from sinks.db.models import Alert as AlertRow

router = APIRouter(prefix="/svc_poweruser/alerts", tags=["alerts"])

ALERT_NOT_FOUND = "Alert not found"
BAD_CURSOR = "cursor: not a cursor of /alerts/get-all"


def wire(row: AlertRow, items: list[AlertItem] | None = None) -> Alert:
    return Alert(
        alert_id=row.id,
        rule_id=row.rule_id,
        condition=ConditionType(row.condition_type),
        subject=Subject(kind=SubjectKind(row.subject_kind), id=row.subject_id),
        state=AlertState(row.state),
        count=row.item_count,
        first_item_at=iso_utc(row.first_item_at),
        last_item_at=iso_utc(row.last_item_at),
        opened_at=iso_utc(row.opened_at) or "",
        acknowledged_at=iso_utc(row.acknowledged_at),
        resolved_at=iso_utc(row.resolved_at),
        resolved_by=ResolvedBy(row.resolved_by) if row.resolved_by else None,
        items=items,
    )


def _items(session: Session, row: AlertRow) -> list[AlertItem]:
    return [
        AlertItem(kind=ItemKind(item.kind), id=item.item_id, at=iso_utc(item.at) or "", detail=item.detail)
        for item in lifecycle.items_of(session, row.company_id, row.id)
    ]


def _encode_cursor(row: AlertRow) -> str:
    return base64.urlsafe_b64encode(f"{row.opened_at.isoformat()}|{row.id}".encode()).decode()


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        opened, _, alert_id = base64.urlsafe_b64decode(cursor.encode()).decode().partition("|")
        moment = datetime.fromisoformat(opened)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ApiError(400, BAD_CURSOR) from None
    if not alert_id or moment.tzinfo is None:
        raise ApiError(400, BAD_CURSOR)
    return moment.astimezone(UTC), alert_id


def _found(session: Session, company_id: str, alert_id: str) -> AlertRow:
    row = lifecycle.find(session, company_id, alert_id)
    if row is None:
        raise ApiError(404, ALERT_NOT_FOUND)
    return row


def _rule(session: Session, row: AlertRow) -> StoredRule | None:
    rule = rules.find(session, row.company_id, row.rule_id)
    return None if rule is None else rules.stored(rule)


@router.post("/get-all", response_model=AlertsAnswer, response_model_by_alias=True)
def get_alerts(body: AlertsRequest, caller: PoweruserCaller, session: DbSession) -> AlertsAnswer:
    admin(caller)
    before = None if body.cursor is None else _decode_cursor(body.cursor)
    rows = lifecycle.page(session, caller.company_id, body.state, body.rule_id, before, body.limit + 1)
    more = len(rows) > body.limit
    rows = rows[: body.limit]
    return AlertsAnswer(
        alerts=[wire(row) for row in rows], next_cursor=_encode_cursor(rows[-1]) if more and rows else None
    )


@router.post("/get", response_model=AlertAnswer, response_model_by_alias=True)
def get_alert(body: AlertIdRequest, caller: PoweruserCaller, session: DbSession) -> AlertAnswer:
    admin(caller)
    row = _found(session, caller.company_id, body.alert_id)
    return AlertAnswer(alert=wire(row, _items(session, row)))


@router.post("/acknowledge", response_model=AlertAnswer, response_model_by_alias=True)
def acknowledge_alert(body: AlertIdRequest, caller: PoweruserCaller, session: DbSession) -> AlertAnswer:
    """OPEN → ACKNOWLEDGED; an acknowledged alert answers as it is; a resolved one is 400."""
    admin(caller)
    row = _found(session, caller.company_id, body.alert_id)
    if row.state == AlertState.RESOLVED.value:
        raise ApiError(400, "The alert is resolved: there is nothing left to acknowledge")
    lifecycle.acknowledge(session, _rule(session, row), row, datetime.now(UTC))
    return AlertAnswer(alert=wire(row))


@router.post("/resolve", response_model=AlertAnswer, response_model_by_alias=True)
def resolve_alert(body: AlertIdRequest, caller: PoweruserCaller, session: DbSession) -> AlertAnswer:
    """OPEN or ACKNOWLEDGED → RESOLVED; a resolved alert answers as it is. A failure after this opens a
    new alert."""
    admin(caller)
    row = _found(session, caller.company_id, body.alert_id)
    lifecycle.resolve(session, _rule(session, row), row, ResolvedBy.CALL, datetime.now(UTC))
    return AlertAnswer(alert=wire(row))


def _replay_request(
    sessions: SessionsDep, company_id: str, body: AlertReplayRequest
) -> tuple[ReplayRequest, int]:
    with sessions() as session:
        row = _found(session, company_id, body.alert_id)
        if row.condition_type != ConditionType.WEBHOOK_FAILURES.value:
            raise ApiError(400, "Only a WEBHOOK_FAILURES alert has deliveries to replay")
        executions = [item.id for item in _items(session, row) if item.kind is ItemKind.EXECUTION]
        if not executions:
            raise ApiError(400, "The alert lists no failed delivery")
        request = ReplayRequest(
            webhook_id=row.subject_id,
            execution_ids=executions,
            dry_run=body.dry_run,
            limit=len(executions),
        )
        return request, max(0, row.item_count - len(executions))


@router.post("/replay", response_model=ReplayAnswer, response_model_by_alias=True)
async def replay_alert(
    body: AlertReplayRequest,
    caller: PoweruserCaller,
    settings: SettingsDep,
    sessions: SessionsDep,
    committer: CommitterDep,
    publisher: PublisherDep,
    masker: MaskerDep,
    store: StoreDep,
) -> ReplayAnswer:
    """The listed executions of the alert replayed exactly as ``/custom-webhooks/replay`` replays them (its
    answer); failures counted past the listed ones are named in ``errors``."""
    admin(caller)
    request, unlisted = await run_in_threadpool(_replay_request, sessions, caller.company_id, body)
    answer = await replay_webhook(request, caller, settings, sessions, committer, publisher, masker, store)
    if unlisted:
        answer.errors.append(
            f"{unlisted} more failed deliveries are counted but not listed: replay them with "
            "/svc_poweruser/custom-webhooks/replay and a filter"
        )
    return answer
