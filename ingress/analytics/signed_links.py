"""Signed, expiring links: the token in a link is its own credential (upload parts, result downloads).

A token is ``<claims>.<signature>``: the claims and ``exp`` as canonical JSON (sorted keys, no spaces) in
URL-safe base64 without padding, and an HMAC-SHA256 over that text, keyed with a key derived from the secret
and a purpose, so a token made for one purpose never opens another.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from typing import Any

_KEY_LABEL = b"svc.signed-link.v1\x00"
DEFAULT_PURPOSE = "link"
MAX_TOKEN_CHARS = 4096
_TOKEN = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


class LinkError(Exception):
    """A link that is forged, malformed or expired; ``reason`` is safe to show and never holds the token."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def _key(secret: str, purpose: str) -> bytes:
    return hmac.new(secret.encode(), _KEY_LABEL + purpose.encode(), hashlib.sha256).digest()


def _signature(secret: str, purpose: str, body: str) -> str:
    return _b64(hmac.new(_key(secret, purpose), body.encode("ascii"), hashlib.sha256).digest())


def make_token(
    secret: str,
    claims: Mapping[str, str | int],
    expires_at: int,
    *,
    purpose: str = DEFAULT_PURPOSE,
) -> str:
    """A URL-safe token carrying ``claims`` until ``expires_at`` (Unix seconds)."""
    if "exp" in claims:
        raise ValueError("'exp' is set by make_token, not by the claims")
    for name, value in claims.items():
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise TypeError(f"claim {name!r} must be a string or an integer")
    canonical = json.dumps({**claims, "exp": int(expires_at)}, sort_keys=True, separators=(",", ":"))
    body = _b64(canonical.encode())
    return f"{body}.{_signature(secret, purpose, body)}"


def read_token(secret: str, token: str, *, now: float, purpose: str = DEFAULT_PURPOSE) -> dict[str, Any]:
    """The claims of a genuine, unexpired token (with ``exp``); ``LinkError`` otherwise."""
    # Anything but two runs of the URL-safe base64 alphabet is refused before any decoding: a token comes
    # from a URL, so it may hold any character (non-ASCII ones made the signature's ASCII encoding raise).
    if len(token) > MAX_TOKEN_CHARS or _TOKEN.fullmatch(token) is None:
        raise LinkError("The link is malformed")
    body, signature = token.split(".")
    if not hmac.compare_digest(_signature(secret, purpose, body).encode(), signature.encode("ascii")):
        raise LinkError("The link's signature is not valid")
    try:
        claims = json.loads(_unb64(body))
    except (binascii.Error, ValueError, RecursionError) as error:
        raise LinkError("The link is malformed") from error
    expires_at = claims.get("exp") if isinstance(claims, dict) else None
    if not isinstance(expires_at, int) or isinstance(expires_at, bool):
        raise LinkError("The link is malformed")
    if now >= expires_at:
        raise LinkError("The link has expired")
    return dict(claims)
