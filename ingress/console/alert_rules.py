"""Alert rules: create (the signing secret shown once), edit (the secret rotated on request, shown once),
delete after a confirmation. Company admins only, as the API answers; every change is the API's own
``/svc_poweruser/alerts/rules/{create,update,delete}``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages
from ingress.console.api import ALERTS
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console import AlertRuleForm

# Included before the alerts' own router: its POST /console/alerts/{alertId}/{action} would take these paths.
router = APIRouter(prefix="/console/alerts/rules", include_in_schema=False)
RULES = f"{ALERTS}/rules"


def _form_page(
    console: Console, rule: dict[str, Any] | None, fields: dict[str, str], status: int = 200, **context: Any
) -> Response:
    shown = AlertRuleForm.shown(rule)
    if fields:  # a form sent back: its checkboxes are off unless they came with it
        shown = {**shown, "enabled": False, "rotate_secret": False, **fields}
    context.setdefault("errors", [])
    return console.page(
        "alert_rule.html",
        status=status,
        rule=rule,
        form=shown,
        conditions=AlertRuleForm.CONDITIONS,
        **context,
    )


async def _rule(console: Console, rule_id: str) -> dict[str, Any] | Response:
    """The rule from ``/rules/get-all`` (the API has no single get), or the page saying why not."""
    listed = await console.api(f"{RULES}/get-all", {})
    if not listed.ok:
        return console.page("error.html", status=listed.status, errors=listed.errors)
    found: dict[str, Any] | None = next(
        (rule for rule in listed.body.get("rules", []) if rule["ruleId"] == rule_id), None
    )
    if found is None:
        return console.page("error.html", status=404, errors=[f"Alert rule not found: {rule_id}"])
    return found


def _form(fields: dict[str, str]) -> AlertRuleForm | list[str]:
    try:
        return AlertRuleForm.model_validate(fields)
    except ValidationError as exc:
        return pages.form_errors(exc)


@router.get("/new")
async def new_rule(request: Request) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    return _form_page(console, None, {})


@router.post("/new")
async def create_rule(request: Request) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    form = _form(fields)
    if isinstance(form, list):
        return _form_page(console, None, fields, 400, errors=form)
    answer = await console.api(f"{RULES}/create", form.create_body())
    if not answer.ok:
        return _form_page(console, None, fields, answer.status, errors=answer.errors)
    return console.page("alert_rule_secret.html", rule=answer.body["rule"], secret=answer.body.get("secret"))


@router.get("/{rule_id}")
async def edit_form(request: Request, rule_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    rule = await _rule(console, rule_id)
    return rule if isinstance(rule, Response) else _form_page(console, rule, {})


@router.post("/{rule_id}")
async def update_rule(request: Request, rule_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    rule = await _rule(console, rule_id)
    if isinstance(rule, Response):
        return rule
    form = _form(fields)
    if isinstance(form, list):
        return _form_page(console, rule, fields, 400, errors=form)
    answer = await console.api(f"{RULES}/update", form.update_body(rule_id))
    if not answer.ok:
        return _form_page(console, rule, fields, answer.status, errors=answer.errors)
    if answer.body.get("secret"):
        return console.page(
            "alert_rule_secret.html", rule=answer.body["rule"], secret=answer.body["secret"], rotated=True
        )
    return pages.redirect("/console/alerts")


@router.post("/{rule_id}/delete")
async def delete_rule(request: Request, rule_id: str) -> Response:
    """First press: a confirmation naming what goes with the rule; the second (``confirm``) deletes it."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    rule = await _rule(console, rule_id)
    if isinstance(rule, Response):
        return rule
    if fields.get("confirm") != "yes":
        return console.page("alert_rule_delete.html", rule=rule, errors=[])
    answer = await console.api(f"{RULES}/delete", {"ruleId": rule_id})
    if not answer.ok:
        return _form_page(console, rule, {}, answer.status, errors=answer.errors)
    return pages.redirect("/console/alerts")
