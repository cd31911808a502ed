"""One console request: who it acts as, its form, its CSRF check, its calls into the API, its page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ingress.auth_throttle import peer_address
from ingress.console import api, auth, pages, sessions
from schemas.settings import Settings

SIGN_IN = "/console/sign-in"
# An edit form carries two scripts of up to 64 KiB and a sample body, percent-encoded.
MAX_FORM_BYTES = 1_000_000


@dataclass
class Console:
    request: Request
    settings: Settings
    signed: auth.SignedIn

    @property
    def csrf(self) -> str:
        return sessions.csrf_token(self.settings.secret_key, self.signed.token)

    async def api(self, path: str, body: dict[str, Any], params: dict[str, str] | None = None) -> api.Answer:
        return await api.call(
            self.request.app,
            path,
            body,
            peer=peer_address(self.request),
            request_id=getattr(self.request.state, "request_id", None),
            callers=api.callers_of(self.signed.poweruser, self.signed.client),
            params=params,
        )

    def page(self, template: str, status: int = 200, **context: Any) -> Response:
        return pages.render(
            template, status=status, csrf=self.csrf, me=self.signed.poweruser, nav=template, **context
        )


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def secure(request: Request) -> bool:
    return request.url.scheme == "https"


async def signed_in(request: Request) -> Console | None:
    token = request.cookies.get(sessions.COOKIE)
    if not token:
        return None
    signed = await run_in_threadpool(
        auth.resolve, request.app.state.sessions, token, sessions.token_digest(token)
    )
    if signed is None:
        return None
    return Console(request, settings_of(request), signed)


async def read_form(request: Request) -> dict[str, str]:
    raw = await request.body()
    if len(raw) > MAX_FORM_BYTES:
        return {}
    parsed = parse_qs(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {name: values[-1] for name, values in parsed.items()}


def origin_ok(request: Request) -> bool:
    headers = request.headers
    return sessions.same_origin(
        headers.get("origin"), headers.get("referer"), headers.get("host"), request.url.scheme
    )


async def changing(request: Request) -> tuple[Console, dict[str, str]] | Response:
    """A signed-in form post from the console's own origin with its session's CSRF token, or the answer that
    refuses it (back to sign-in, or 403)."""
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    form = await read_form(request)
    if not origin_ok(request) or not sessions.csrf_ok(
        console.settings.secret_key, console.signed.token, form.get("csrf")
    ):
        return pages.render(
            "error.html",
            status=403,
            csrf="",
            me=None,
            nav="",
            errors=["The form has expired: reload the page and try again."],
        )
    return console, form
