"""``/svc_poweruser/alerts/rules/{create,get-all,update,delete}``: a company's alert rules (docs/webhooks.md,
"Alerts").

Company admins only. A rule names its subject (a webhook, a handler resource, a scheduled event, a table of
the company) or none (any of the company's), and may notify a handler resource of the company. A rule of
another company answers as a missing one.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter
from sqlalchemy.orm import Session

from ingress.deps import DbSession, MaskerDep, PoweruserCaller
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.alerts import (
    MAX_RULES_PER_COMPANY,
    Condition,
    CreateRuleRequest,
    DeletedRuleAnswer,
    Rule,
    RuleAnswer,
    RuleIdRequest,
    RulesAnswer,
    UpdateRuleRequest,
    subject_of,
)
from schemas.base import iso_utc
from schemas.identity import EmptyRequest
from sinks.db import resources
from sinks.db.alerts import rules
from sinks.db.alerts.rules import StoredRule

router = APIRouter(prefix="/svc_poweruser/alerts/rules", tags=["alerts"])

RULE_NOT_FOUND = "Alert rule not found"
_SUBJECT_NAMES = {
    "WEBHOOK_FAILURES": "condition.webhookId: no such webhook in your company",
    "CIRCUIT_OPEN": "condition.resourceId: no such handler resource in your company",
    "SCHEDULED_RUN": "condition.eventId: no such scheduled event in your company",
    "TABLE_FAILURE": "condition.tableId: no such table in your company",
}


def admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(403, "Only company admins manage alerts")


def wire(rule: StoredRule) -> Rule:
    return Rule(
        rule_id=rule.id,
        name=rule.name,
        condition=rule.condition,
        resolve_after_seconds=rule.resolve_after_seconds,
        notify=rule.notify,
        enabled=rule.enabled,
        created_at=iso_utc(rule.created_at) or "",
        updated_at=iso_utc(rule.updated_at) or "",
    )


def _check(session: Session, company_id: str, condition: Condition | None, notify: str | None) -> None:
    """What the model cannot check: the names of things in the caller's company (400, nothing written)."""
    problems = []
    subject = None if condition is None else subject_of(condition)
    if (
        condition is not None
        and subject is not None
        and not rules.subject_exists(session, company_id, condition.type, subject)
    ):
        problems.append(_SUBJECT_NAMES[condition.type.value])
    if notify is not None and resources.get_handler(session, company_id, notify) is None:
        problems.append("notify: no such handler resource in your company")
    if problems:
        raise ApiError(400, *problems)


@router.post("/create", response_model=RuleAnswer, response_model_by_alias=True)
def create_rule(
    body: CreateRuleRequest, caller: PoweruserCaller, session: DbSession, masker: MaskerDep
) -> RuleAnswer:
    admin(caller)
    _check(session, caller.company_id, body.condition, body.notify)
    if rules.count(session, caller.company_id) >= MAX_RULES_PER_COMPANY:
        raise ApiError(400, f"A company has at most {MAX_RULES_PER_COMPANY} alert rules: delete one first")
    rule, secret = rules.create(session, masker, caller.company_id, body, datetime.now(UTC))
    return RuleAnswer(rule=wire(rule), secret=secret)


@router.post("/get-all", response_model=RulesAnswer, response_model_by_alias=True)
def get_rules(caller: PoweruserCaller, session: DbSession, _body: EmptyRequest | None = None) -> RulesAnswer:
    admin(caller)
    return RulesAnswer(rules=[wire(rule) for rule in rules.of_company(session, caller.company_id)])


@router.post("/update", response_model=RuleAnswer, response_model_by_alias=True)
def update_rule(
    body: UpdateRuleRequest, caller: PoweruserCaller, session: DbSession, masker: MaskerDep
) -> RuleAnswer:
    admin(caller)
    row = rules.find(session, caller.company_id, body.rule_id)
    if row is None:
        raise ApiError(404, RULE_NOT_FOUND)
    _check(session, caller.company_id, body.condition, body.notify)
    rule, secret = rules.update_rule(session, masker, row, body, datetime.now(UTC))
    return RuleAnswer(rule=wire(rule), secret=secret)


@router.post("/delete", response_model=DeletedRuleAnswer, response_model_by_alias=True)
def delete_rule(body: RuleIdRequest, caller: PoweruserCaller, session: DbSession) -> DeletedRuleAnswer:
    admin(caller)
    if not rules.delete_rule(session, caller.company_id, body.rule_id):
        raise ApiError(404, RULE_NOT_FOUND)
    return DeletedRuleAnswer()
