"""Alerts and destinations: the company's destinations (circuit, calls in flight and waiting, limits), its
alerts with their items, acknowledged or resolved from the page, and its alert rules. Company admins only, as
the API answers."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages
from ingress.console.api import ALERTS, DESTINATIONS
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console import AlertFilter

router = APIRouter(prefix="/console/alerts", include_in_schema=False)
PAGE_SIZE = 50
ACTIONS = {"acknowledge", "resolve"}


async def _overview(console: Console, chosen: AlertFilter, status: int = 200, **context: Any) -> Response:
    destinations = await console.api(f"{DESTINATIONS}/get-all", {})
    body: dict[str, Any] = {"limit": PAGE_SIZE}
    if chosen.state:
        body["state"] = chosen.state
    if chosen.cursor:
        body["cursor"] = chosen.cursor
    alerts = await console.api(f"{ALERTS}/get-all", body)
    rules = await console.api(f"{ALERTS}/rules/get-all", {})
    errors = list(dict.fromkeys([*destinations.errors, *alerts.errors, *rules.errors]))
    context.setdefault("errors", errors)
    return console.page(
        "alerts.html",
        status=status,
        destinations=destinations.body.get("destinations", []),
        alerts=alerts.body.get("alerts", []),
        next_cursor=alerts.body.get("nextCursor"),
        rules={rule["ruleId"]: rule for rule in rules.body.get("rules", [])},
        chosen=chosen,
        states=AlertFilter.STATES,
        **context,
    )


@router.get("")
async def overview(request: Request) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    try:
        chosen = AlertFilter.model_validate(dict(request.query_params))
    except ValidationError as exc:
        return await _overview(console, AlertFilter(), 400, errors=[e["msg"] for e in exc.errors()])
    return await _overview(console, chosen)


@router.get("/{alert_id}")
async def alert_detail(request: Request, alert_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    return await _detail(console, alert_id)


async def _detail(console: Console, alert_id: str, status: int = 200, **context: Any) -> Response:
    got = await console.api(f"{ALERTS}/get", {"alertId": alert_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    rules = await console.api(f"{ALERTS}/rules/get-all", {})
    alert = got.body["alert"]
    rule = next((r for r in rules.body.get("rules", []) if r["ruleId"] == alert["ruleId"]), None)
    context.setdefault("errors", [])
    return console.page("alert.html", status=status, alert=alert, rule=rule, **context)


@router.post("/{alert_id}/{action}")
async def change_alert(request: Request, alert_id: str, action: str) -> Response:
    """Acknowledge or resolve, then back to the page the button was on (the alert, or the list)."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    if action not in ACTIONS:
        return console.page("error.html", status=404, errors=["Not found"])
    answer = await console.api(f"{ALERTS}/{action}", {"alertId": alert_id})
    if not answer.ok:
        return await _detail(console, alert_id, answer.status, errors=answer.errors)
    if fields.get("back") == "list":
        return pages.redirect("/console/alerts")
    return pages.redirect(f"/console/alerts/{quote(alert_id)}")
