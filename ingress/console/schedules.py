"""Schedules: the company's events, and a new one's next 10 fire times previewed in its zone (offsets shown,
DST changes marked) before it is created; an event's runs with their status, run now, pause until, resume;
an event edited (name, schedule, zone, action) with the edited schedule's next 10 fire times previewed
before it is saved through ``/update``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages, views
from ingress.console.api import SCHEDULES
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console import PauseForm, RunsFilter, ScheduleEditForm, ScheduleForm

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


RUNS_PAGE_SIZE = 25


def _runs_query(status: str | None, page: int) -> str:
    return urlencode({"page": str(page), **({"status": status} if status else {})})


async def _event_page(
    console: Console, event_id: str, chosen: RunsFilter, status: int = 200, **context: Any
) -> Response:
    got = await console.api(f"{SCHEDULES}/get", {"scheduledEventId": event_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    body: dict[str, Any] = {"scheduledEventId": event_id, "page": chosen.page, "size": RUNS_PAGE_SIZE}
    if chosen.status:
        body["status"] = chosen.status
    runs = await console.api(f"{SCHEDULES}/runs", body)
    event = got.body["scheduledEvent"]
    context.setdefault("errors", [])
    context.setdefault("notice", None)
    return console.page(
        "schedule.html",
        status=status,
        event=event,
        runs=runs.body.get("runs", []),
        total=runs.body.get("totalElements", 0),
        total_pages=runs.body.get("totalPages", 0),
        runs_errors=runs.errors,
        chosen=chosen,
        statuses=RunsFilter.STATUSES,
        page_query=lambda page: _runs_query(chosen.status, page),
        zone=event.get("timezone") or "UTC",
        **context,
    )


@router.get("/{event_id}")
async def event_detail(request: Request, event_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    if console.signed.client is None:
        return console.page("error.html", status=403, errors=[NO_CLIENT_KEY])
    try:
        chosen = RunsFilter.model_validate(dict(request.query_params))
    except ValidationError as exc:
        return await _event_page(
            console, event_id, RunsFilter(), 400, errors=[e["msg"] for e in exc.errors()]
        )
    return await _event_page(console, event_id, chosen)


@router.post("/{event_id}/run-now")
async def run_now(request: Request, event_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, _fields = checked
    answer = await console.api(f"{SCHEDULES}/run-now", {"scheduledEventId": event_id})
    if not answer.ok:
        return await _event_page(console, event_id, RunsFilter(), answer.status, errors=answer.errors)
    return pages.redirect(f"/console/schedules/{quote(event_id)}")


@router.post("/{event_id}/pause")
async def pause(request: Request, event_id: str) -> Response:
    """Pause until a time in a zone the form names, or (``until`` blank: the Resume button) resume now."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    try:
        body = PauseForm.model_validate(fields).request_body(event_id)
    except (ValidationError, ValueError) as exc:
        errors = [e["msg"] for e in exc.errors()] if isinstance(exc, ValidationError) else [str(exc)]
        return await _event_page(console, event_id, RunsFilter(), 400, errors=errors)
    answer = await console.api(f"{SCHEDULES}/pause", body)
    if not answer.ok:
        return await _event_page(console, event_id, RunsFilter(), answer.status, errors=answer.errors)
    return pages.redirect(f"/console/schedules/{quote(event_id)}")


async def _preview(console: Console, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The context of a preview of ``body`` (a schedule or an event id), or the API's errors."""
    answer = await console.api(f"{SCHEDULES}/preview", {**body, "count": PREVIEW_COUNT})
    if not answer.ok:
        return {}, answer.errors
    shown = views.fire_times(answer.body.get("fireTimes", []))
    return {"preview": shown, "zone": answer.body.get("timezone")}, []


async def _edit_page(
    console: Console, event: dict[str, Any], fields: dict[str, str], status: int = 200, **context: Any
) -> Response:
    context.setdefault("errors", [])
    context.setdefault("preview", None)
    context.setdefault("zone", None)
    return console.page(
        "schedule_edit.html",
        status=status,
        event=event,
        form={**ScheduleEditForm.shown(event), **fields},
        **context,
    )


@router.get("/{event_id}/edit")
async def edit_form(request: Request, event_id: str) -> Response:
    """The event's form, with its next fire times as the scheduler will fire them."""
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    if console.signed.client is None:
        return console.page("error.html", status=403, errors=[NO_CLIENT_KEY])
    got = await console.api(f"{SCHEDULES}/get", {"scheduledEventId": event_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    previewed, errors = await _preview(console, {"scheduledEventId": event_id})
    return await _edit_page(console, got.body["scheduledEvent"], {}, errors=errors, **previewed)


@router.post("/{event_id}/edit")
async def edit(request: Request, event_id: str) -> Response:
    """``Preview``: the edited schedule's next fire times; ``Save``: the form sent to ``/update``."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    got = await console.api(f"{SCHEDULES}/get", {"scheduledEventId": event_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    event = got.body["scheduledEvent"]
    try:
        form = ScheduleEditForm.model_validate(fields)
        body = form.update_body(event_id)
    except (ValidationError, ValueError) as exc:
        errors = [e["msg"] for e in exc.errors()] if isinstance(exc, ValidationError) else [str(exc)]
        return await _edit_page(console, event, fields, 400, errors=errors)
    previewed, errors = await _preview(console, {"scheduleSpec": form.schedule_spec()})
    if fields.get("action") != "save" or errors:
        return await _edit_page(console, event, fields, 400 if errors else 200, errors=errors, **previewed)
    answer = await console.api(f"{SCHEDULES}/update", body)
    if not answer.ok:
        return await _edit_page(console, event, fields, answer.status, errors=answer.errors, **previewed)
    return pages.redirect(f"/console/schedules/{quote(event_id)}")
