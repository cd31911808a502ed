"""Rendering: the Jinja environment (autoescape on for every template) and the headers every page carries."""

from __future__ import annotations

import functools
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import ValidationError
from starlette.responses import HTMLResponse, RedirectResponse

from ingress.console import views

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("ingress.console", "templates"),
        autoescape=True,  # every template, whatever its name: every value is escaped
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pretty_json"] = views.pretty_json
    env.filters["tone"] = views.tone
    env.filters["cell"] = views.cell
    env.globals["page_numbers"] = views.page_numbers
    return env


def render(
    template: str, status: int = 200, headers: dict[str, str] | None = None, **context: Any
) -> HTMLResponse:
    html = environment().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})})


def redirect(location: str, headers: dict[str, str] | None = None) -> RedirectResponse:
    return RedirectResponse(location, status_code=303, headers={**SECURITY_HEADERS, **(headers or {})})


def form_errors(exc: ValidationError) -> list[str]:
    """A refused form's errors, one line each: the field, then what is wrong with it."""
    return [f"{'.'.join(str(p) for p in e['loc']) or 'form'}: {e['msg']}" for e in exc.errors()]
