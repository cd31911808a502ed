"""Sign-in and sign-out. The key is checked by the API itself (``/svc_poweruser/whoami`` in process, from the
browser's address), so a refused key is throttled exactly as the API throttles it."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ingress.auth_throttle import peer_address, poweruser_key_id
from ingress.console import api, auth, pages, sessions
from ingress.console.context import SIGN_IN, changing, origin_ok, read_form, secure, settings_of, signed_in
from schemas.admin import Principal

log = logging.getLogger(__name__)
router = APIRouter(prefix="/console", include_in_schema=False)
HOME = "/console/webhooks"


def _form(
    status: int = 200, errors: list[str] | None = None, headers: dict[str, str] | None = None
) -> Response:
    return pages.render(
        "sign_in.html", status=status, headers=headers, csrf="", me=None, nav="", errors=errors or []
    )


@router.get("")
async def home(request: Request) -> Response:
    return pages.redirect(HOME if await signed_in(request) else SIGN_IN)


@router.get("/sign-in")
async def sign_in_form(request: Request) -> Response:
    if await signed_in(request):
        return pages.redirect(HOME)
    return _form()


@router.post("/sign-in")
async def sign_in(request: Request) -> Response:
    form = await read_form(request)
    if not origin_ok(request):
        return _form(403, ["Sign in from the console's own page."])
    key = form.get("key", "").strip()
    if not key:
        return _form(400, ["Enter your poweruser key."])
    answer = await api.call(
        request.app,
        "/svc_poweruser/whoami",
        {},
        peer=peer_address(request),
        request_id=getattr(request.state, "request_id", None),
        authorization=key,
    )
    key_id = poweruser_key_id(key)
    if not answer.ok or key_id is None:
        log.info("console sign-in refused", extra={"status": answer.status})
        # The form again with the API's reason; a throttled address keeps the API's 429 and Retry-After.
        status = 429 if answer.status == 429 else 200
        return _form(status, answer.errors if not answer.ok else ["Invalid API key"], answer.headers)
    who = answer.body
    principal = Principal(
        company_id=who["companyId"],
        user_id=who["userId"],
        email=who["email"],
        is_admin=who["isAdmin"],
        key_id=key_id,
        key_kind=who["keyType"],
    )
    settings = settings_of(request)
    token = sessions.new_token()
    await run_in_threadpool(
        auth.start,
        request.app.state.sessions,
        sessions.token_digest(token),
        principal,
        settings.console_session_seconds,
    )
    log.info("console sign-in", extra={"company_id": principal.company_id, "user_id": principal.user_id})
    cookie = sessions.cookie_header(token, max_age=settings.console_session_seconds, secure=secure(request))
    return pages.redirect(HOME, headers={"Set-Cookie": cookie})


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, _form_fields = checked
    await run_in_threadpool(auth.end, request.app.state.sessions, sessions.token_digest(console.signed.token))
    return pages.redirect(
        SIGN_IN, headers={"Set-Cookie": sessions.cleared_cookie_header(secure=secure(request))}
    )
