"""``/svc_poweruser/retention/{get,update}``: how long the caller's company keeps each kind of record.

Company admins only. A company's values apply to its own records alone; a field it never set (or set back to
``null``) follows the service's setting, so a change of the setting reaches it.
"""

from __future__ import annotations

from fastapi import APIRouter

from core.retention import Retention, of_settings
from ingress.deps import DbSession, PoweruserCaller, SettingsDep
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.identity import EmptyRequest
from schemas.retention import RetentionAnswer, RetentionUpdate
from sinks.db import retention

router = APIRouter(prefix="/svc_poweruser/retention", tags=["retention"])


def _admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(403, "Only company admins manage retention")


def _answer(kept: Retention) -> RetentionAnswer:
    return RetentionAnswer(
        history_seconds=kept.history_seconds, runs_seconds=kept.runs_seconds, jobs_seconds=kept.jobs_seconds
    )


@router.post("/get", response_model=RetentionAnswer, response_model_by_alias=True)
def get_retention(
    caller: PoweruserCaller, session: DbSession, settings: SettingsDep, _body: EmptyRequest | None = None
) -> RetentionAnswer:
    _admin(caller)
    return _answer(retention.of_company(session, caller.company_id, of_settings(settings)))


@router.post("/update", response_model=RetentionAnswer, response_model_by_alias=True)
def update_retention(
    body: RetentionUpdate, caller: PoweruserCaller, session: DbSession, settings: SettingsDep
) -> RetentionAnswer:
    _admin(caller)
    retention.update(
        session, caller.company_id, {name: getattr(body, name) for name in body.model_fields_set}
    )
    return _answer(retention.of_company(session, caller.company_id, of_settings(settings)))
