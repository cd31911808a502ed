"""Webhooks and their deliveries: list, create (the key shown once), edit (name, handler, mappings, content
filter, provider signature), rotate the key (the new one shown once), enable or disable, the delivery history
with its inspector, replay one delivery or a filter (counted by a dry run before it is confirmed)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages, views
from ingress.console.api import WEBHOOKS
from ingress.console.attempts import attempt_rows
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console import (
    PROVIDERS,
    DeliveryFilter,
    ReplayForm,
    TransformSampleForm,
    WebhookEditForm,
    WebhookForm,
)
from schemas.webhooks import HISTORY_SEARCH_LIMIT

router = APIRouter(prefix="/console/webhooks", include_in_schema=False)
PAGE_SIZE = 25
INSPECT_PAGE_SIZE = 100
STATS_WINDOWS = ("HOUR", "DAY")


async def _list(console: Console, status: int = 200, **context: Any) -> Response:
    answer = await console.api(f"{WEBHOOKS}/get-all", {})
    context.setdefault("errors", [])
    context.setdefault("form", WebhookForm.blank())
    return console.page("webhooks.html", status=status, webhooks=answer.body.get("webhooks", []), **context)


@router.get("")
async def list_webhooks(request: Request) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    return await _list(console)


@router.post("")
async def create_webhook(request: Request) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    try:
        form = WebhookForm.model_validate(fields)
        config = form.webhook_config()
    except (ValidationError, ValueError) as exc:
        errors = pages.form_errors(exc) if isinstance(exc, ValidationError) else [str(exc)]
        return await _list(console, 400, errors=errors, form=WebhookForm.blank(fields))
    answer = await console.api(f"{WEBHOOKS}/create", {"webhookConfig": config})
    if not answer.ok:
        return await _list(console, answer.status, errors=answer.errors, form=WebhookForm.blank(fields))
    return console.page("webhook_created.html", webhook=answer.body["webhook"], api_key=answer.body["apiKey"])


@router.get("/{webhook_id}")
async def webhook_detail(request: Request, webhook_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    try:
        chosen = DeliveryFilter.model_validate(dict(request.query_params))
    except ValidationError as exc:
        chosen, errors = DeliveryFilter(), pages.form_errors(exc)
    else:
        errors = []
    return await _detail(console, webhook_id, chosen, errors=errors)


async def _detail(
    console: Console, webhook_id: str, chosen: DeliveryFilter, status: int = 200, **context: Any
) -> Response:
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    history = await console.api(
        f"{WEBHOOKS}/get-execution-history", chosen.history_body(webhook_id, PAGE_SIZE)
    )
    context.setdefault("errors", [])
    return console.page(
        "webhook.html",
        status=status,
        webhook=got.body["webhook"],
        mappings=views.mappings_text(
            (got.body["webhook"]["webhookConfig"].get("payloadTransformConfig") or {}).get("jsonPathMappings")
        ),
        history=history.body.get("history", []),
        total_pages=history.body.get("totalPages", 0),
        total=history.body.get("totalElements", 0),
        chosen=chosen,
        history_errors=history.errors,
        search_limited=history.body.get("searchLimited", False),
        search_limit=HISTORY_SEARCH_LIMIT,
        page_query=chosen.query,
        statuses=DeliveryFilter.STATUSES,
        **context,
    )


@router.post("/{webhook_id}/enabled")
async def set_enabled(request: Request, webhook_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    config = got.body["webhook"]["webhookConfig"]
    answer = await console.api(
        f"{WEBHOOKS}/update",
        {"webhookId": webhook_id, "webhookConfig": config, "isEnabled": fields.get("enabled") == "true"},
    )
    if not answer.ok:
        return await _detail(console, webhook_id, DeliveryFilter(), answer.status, errors=answer.errors)
    return pages.redirect(f"/console/webhooks/{quote(webhook_id)}")


@router.get("/{webhook_id}/deliveries/{execution_id}")
async def inspect_delivery(request: Request, webhook_id: str, execution_id: str) -> Response:
    """One delivery: its latest attempt in full, and every attempt in a table (the history's ``executionId``
    filter answers them all in one call)."""
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    answer = await console.api(
        f"{WEBHOOKS}/get-execution-history",
        {"webhookId": webhook_id, "executionId": execution_id, "size": INSPECT_PAGE_SIZE},
    )
    if not answer.ok:
        return console.page("error.html", status=answer.status, errors=answer.errors)
    history = answer.body.get("history", [])
    if not history:
        return console.page("error.html", status=404, errors=["Delivery not found in this webhook's history"])
    entry = history[0]
    details = entry["executionDetails"]
    return console.page(
        "delivery.html",
        webhook_id=webhook_id,
        entry=entry,
        details=details,
        attempts=attempt_rows(history),
        header_rows=views.header_rows(details.get("requestHeaders")),
        errors=[],
    )


@router.post("/{webhook_id}/replay")
async def replay(request: Request, webhook_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    try:
        form = ReplayForm.model_validate(fields)
    except ValidationError as exc:
        return await _detail(console, webhook_id, DeliveryFilter(), 400, errors=pages.form_errors(exc))
    answer = await console.api(f"{WEBHOOKS}/replay", form.request_body(webhook_id))
    if not answer.ok:
        return await _detail(console, webhook_id, DeliveryFilter(), answer.status, errors=answer.errors)
    return console.page("replayed.html", webhook_id=webhook_id, form=form, answer=answer.body, errors=[])


async def _edit_page(
    console: Console, webhook: dict[str, Any], fields: dict[str, str], status: int = 200, **context: Any
) -> Response:
    context.setdefault("errors", [])
    context.setdefault("trial", None)
    verification = webhook["webhookConfig"].get("verificationConfig") or {}
    return console.page(
        "webhook_edit.html",
        status=status,
        webhook=webhook,
        form={**WebhookEditForm.shown(webhook["webhookConfig"]), **fields, "secret": ""},
        providers=PROVIDERS,
        secret_hint=verification.get("secretHint"),
        **context,
    )


@router.get("/{webhook_id}/edit")
async def edit_form(request: Request, webhook_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    return await _edit_page(console, got.body["webhook"], {})


@router.post("/{webhook_id}/edit")
async def edit(request: Request, webhook_id: str) -> Response:
    """The configuration ``/get`` answers with the form's parts put in, sent to ``/update``; the enabled
    state is kept."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    webhook = got.body["webhook"]
    try:
        config = WebhookEditForm.model_validate(fields).edited(webhook["webhookConfig"])
    except (ValidationError, ValueError) as exc:
        errors = pages.form_errors(exc) if isinstance(exc, ValidationError) else [str(exc)]
        return await _edit_page(console, webhook, fields, 400, errors=errors)
    answer = await console.api(
        f"{WEBHOOKS}/update",
        {"webhookId": webhook_id, "webhookConfig": config, "isEnabled": webhook.get("isEnabled", True)},
    )
    if not answer.ok:
        return await _edit_page(console, webhook, fields, answer.status, errors=answer.errors)
    return pages.redirect(f"/console/webhooks/{quote(webhook_id)}")


@router.post("/{webhook_id}/test-transform")
async def test_transform(request: Request, webhook_id: str) -> Response:
    """The edit form's configuration, unsaved, run on the sample body by ``/test-transform``: the edit page
    again, its fields as they were, with the variables made (or the transform's error)."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    webhook = got.body["webhook"]
    try:
        config = WebhookEditForm.model_validate(fields).edited(webhook["webhookConfig"])
        sample = TransformSampleForm.model_validate(fields)
    except (ValidationError, ValueError) as exc:
        errors = pages.form_errors(exc) if isinstance(exc, ValidationError) else [str(exc)]
        return await _edit_page(console, webhook, fields, 400, errors=errors)
    answer = await console.api(f"{WEBHOOKS}/test-transform", sample.request_body(webhook_id, config))
    if not answer.ok:
        return await _edit_page(console, webhook, fields, answer.status, errors=answer.errors)
    return await _edit_page(console, webhook, fields, trial=answer.body)


@router.post("/{webhook_id}/rotate-key")
async def rotate_key(request: Request, webhook_id: str) -> Response:
    """A new trigger key, shown this once; the old one stops working at once."""
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, _fields = checked
    answer = await console.api(f"{WEBHOOKS}/refresh-api-key", {"webhookId": webhook_id})
    if not answer.ok:
        return await _detail(console, webhook_id, DeliveryFilter(), answer.status, errors=answer.errors)
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    return console.page(
        "webhook_created.html", webhook=got.body["webhook"], api_key=answer.body["apiKey"], rotated=True
    )


@router.get("/{webhook_id}/charts")
async def charts(request: Request, webhook_id: str) -> Response:
    """Attempts per bucket by status and the handler's p50/p99, over the last hour or day, drawn as inline SVG
    on the server from ``/get-delivery-stats``."""
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    window = request.query_params.get("window", "HOUR")
    if window not in STATS_WINDOWS:
        window = "HOUR"
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    stats = await console.api(f"{WEBHOOKS}/get-delivery-stats", {"webhookId": webhook_id, "window": window})
    buckets = stats.body.get("buckets", [])
    totals: dict[str, int] = {}
    for bucket in buckets:
        for status, count in bucket["counts"].items():
            totals[status] = totals.get(status, 0) + count
    return console.page(
        "charts.html",
        webhook=got.body["webhook"],
        window=window,
        windows=STATS_WINDOWS,
        stats=stats.body,
        totals=totals,
        status_chart=views.status_chart(buckets),
        latency_chart=views.latency_chart(buckets),
        errors=stats.errors,
    )
