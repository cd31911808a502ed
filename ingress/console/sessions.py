"""Pure rules of the console's sessions: tokens, their digests, CSRF tokens, the cookie, same-origin checks.

The browser holds a random token in an HttpOnly cookie; the database holds only its SHA-256 digest. The CSRF
token of a session is an HMAC of its token under the service's secret key, so it needs no storage, differs
per session, and cannot be made without the token and the key.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

COOKIE = "svc_console"
TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token(secret_key: str, token: str) -> str:
    return hmac.new(secret_key.encode(), b"console-csrf:" + token.encode(), hashlib.sha256).hexdigest()


def csrf_ok(secret_key: str, token: str, presented: str | None) -> bool:
    return bool(presented) and hmac.compare_digest(csrf_token(secret_key, token), presented or "")


def cookie_header(token: str, *, max_age: int, secure: bool, path: str = "/console") -> str:
    """The Set-Cookie value: HttpOnly, SameSite=Strict, Secure when the console is reached over HTTPS."""
    parts = [f"{COOKIE}={token}", f"Path={path}", f"Max-Age={max_age}", "HttpOnly", "SameSite=Strict"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def cleared_cookie_header(*, secure: bool, path: str = "/console") -> str:
    return cookie_header("", max_age=0, secure=secure, path=path)


def same_origin(origin: str | None, referer: str | None, host: str | None, scheme: str) -> bool:
    """Whether a form post comes from the console's own origin. Browsers send Origin on every POST; a
    request without Origin or Referer (a client that is not a browser) carries no ambient cookie risk of
    its own and is judged by its CSRF token alone."""
    source = origin if origin and origin != "null" else referer
    if not source:
        return origin != "null"
    parts = urlsplit(source)
    return bool(host) and parts.scheme == scheme and parts.netloc.lower() == (host or "").lower()
