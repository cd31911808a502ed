"""Sharing a webhook: its current sharing as ``/get`` answers it (the level, the company's access level, the
caller's own), the members it is shared with directly as ``/get-shares`` answers them (to an ADMIN), and a
form sent to ``/share`` (a level, the company's access level, members to add or remove); the API's refusals
(a caller below ADMIN, a user outside the company) shown as it words them."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages
from ingress.console.api import WEBHOOKS
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console_sharing import ShareForm
from schemas.enums import AccessLevel
from schemas.webhooks import SharingLevel

router = APIRouter(prefix="/console/webhooks", include_in_schema=False)


async def _share_page(
    console: Console, webhook_id: str, fields: dict[str, str], status: int = 200, **context: Any
) -> Response:
    got = await console.api(f"{WEBHOOKS}/get", {"webhookId": webhook_id})
    if not got.ok:
        return console.page("error.html", status=got.status, errors=got.errors)
    webhook = got.body["webhook"]
    shares = None
    if webhook["userAccessLevel"] == AccessLevel.ADMIN.value:
        listed = await console.api(f"{WEBHOOKS}/get-shares", {"webhookId": webhook_id})
        shares = listed.body.get("directShares") if listed.ok else None
    context.setdefault("errors", [])
    context.setdefault("saved", False)
    return console.page(
        "webhook_share.html",
        status=status,
        webhook=webhook,
        shares=shares,
        form={**ShareForm.shown(webhook), **fields},
        levels=[level.value for level in SharingLevel],
        access_levels=[level.value for level in AccessLevel],
        **context,
    )


@router.get("/{webhook_id}/share")
async def share_form(request: Request, webhook_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    return await _share_page(console, webhook_id, {}, saved=request.query_params.get("saved") == "1")


@router.post("/{webhook_id}/share")
async def share(request: Request, webhook_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    try:
        body = ShareForm.model_validate(fields).request_body(webhook_id)
    except ValidationError as exc:
        return await _share_page(console, webhook_id, fields, 400, errors=pages.form_errors(exc))
    except ValueError as exc:
        return await _share_page(console, webhook_id, fields, 400, errors=[str(exc)])
    answer = await console.api(f"{WEBHOOKS}/share", body)
    if not answer.ok:
        return await _share_page(console, webhook_id, fields, answer.status, errors=answer.errors)
    return pages.redirect(f"/console/webhooks/{quote(webhook_id)}/share?saved=1")
