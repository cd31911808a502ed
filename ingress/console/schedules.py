"""Schedules: the company's events, and a new one's next 10 fire times previewed in its zone (offsets shown,
DST changes marked) before it is created."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages, views
from ingress.console.api import SCHEDULES
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console import ScheduleForm

router = APIRouter(prefix="/console/schedules", include_in_schema=False)
PREVIEW_COUNT = 10
NO_CLIENT_KEY = "Schedules are client API calls, and this user has no enabled client API key."


async def _page(
    console: Console, fields: dict[str, str] | None = None, status: int = 200, **context: Any
) -> Response:
    listed = await console.api(f"{SCHEDULES}/all", {})
    context.setdefault("errors", [] if console.signed.client else [NO_CLIENT_KEY])
    context.setdefault("preview", None)
    form = {**ScheduleForm().model_dump(), **(fields or {})}
    return console.page(
        "schedules.html", status=status, events=listed.body.get("ownedEvents", []), form=form, **context
    )


@router.get("")
async def list_schedules(request: Request) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    return await _page(console)


@router.post("")
async def create_or_preview(request: Request) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    try:
        form = ScheduleForm.model_validate(fields)
    except ValidationError as exc:
        return await _page(console, fields, 400, errors=[e["msg"] for e in exc.errors()])
    if fields.get("action") != "create":
        answer = await console.api(
            f"{SCHEDULES}/preview", {"scheduleSpec": form.schedule_spec(), "count": PREVIEW_COUNT}
        )
        if not answer.ok:
            return await _page(console, fields, answer.status, errors=answer.errors)
        shown = views.fire_times(answer.body.get("fireTimes", []))
        return await _page(console, fields, preview=shown, zone=answer.body.get("timezone"))
    created = await console.api(f"{SCHEDULES}/create", form.create_body())
    if not created.ok:
        return await _page(console, fields, created.status, errors=created.errors)
    return pages.redirect("/console/schedules")
