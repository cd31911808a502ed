"""Authentication of a webhook delivery, in exactly the order of the spec's trigger error table."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping

from fastapi import Request
from fastapi.responses import JSONResponse

from ingress.auth_throttle import (
    FLUSH_WAIT_SECONDS,
    LOCKED_OUT,
    AuthThrottle,
    peer_address,
    webhook_key_id,
)
from sinks import credentials
from sinks.db.webhooks.deliveries import TriggerTarget

_WEBHOOK_ID = re.compile(r"^[0-9a-f]{32}$")


class TriggerRejected(Exception):
    """A 401 with body ``{"error": message}``; a 429 with ``Retry-After`` while the caller is locked out.

    ``wrong_key``: a key was presented and refused, a failed authentication that counts towards a lockout
    (of the caller's address, and of ``key_id`` when the key had one).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 401,
        retry_after: int | None = None,
        wrong_key: bool = False,
        key_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.wrong_key = wrong_key
        self.key_id = key_id


async def check_lockout(throttle: AuthThrottle, request: Request, presented: str | None) -> None:
    """Refuse, before the key is checked, an address or key id that failed too often this minute."""
    wait = await throttle.lockout_async(
        peer_address(request), webhook_key_id(presented), time.time(), wait_seconds=FLUSH_WAIT_SECONDS
    )
    if wait is not None:
        message = f"{LOCKED_OUT}; retry after the time in Retry-After."
        raise TriggerRejected(message, status=429, retry_after=wait)


def refusal(throttle: AuthThrottle, request: Request, rejected: TriggerRejected) -> JSONResponse:
    """The answer to a refused trigger call; a wrong key is counted first."""
    if rejected.wrong_key:
        throttle.failed(peer_address(request), rejected.key_id, time.time())
    headers = {"Retry-After": str(rejected.retry_after)} if rejected.retry_after is not None else None
    return JSONResponse({"error": rejected.message}, status_code=rejected.status, headers=headers)


def webhook_id_from(query: Mapping[str, str]) -> str:
    value = query.get("resourceId")
    if value is None or not value.strip():
        raise TriggerRejected("No webhook ID provided.")
    value = value.strip()
    if not _WEBHOOK_ID.match(value):
        raise TriggerRejected("Invalid webhook ID.")
    return value


def presented_key(headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """The ``Authorization`` header wins over the ``authorization`` query parameter (any letter case)."""
    header = headers.get("authorization", "").strip()
    if header:
        return header
    for name, value in query.items():
        if name.lower() == "authorization" and value.strip():
            return value.strip()
    return None


def check_target(target: TriggerTarget | None) -> TriggerTarget:
    if target is None:
        raise TriggerRejected("Webhook not found.")
    if not target.is_enabled:
        raise TriggerRejected("Webhook is disabled.")
    return target


def check_key(target: TriggerTarget, presented: str | None, key_owner: Callable[[str], str | None]) -> None:
    """``key_owner`` names the webhook a key id belongs to (only asked for a key id of another webhook)."""
    if presented is None:
        raise TriggerRejected("No API key provided.")
    parsed = credentials.parse_webhook_key(presented)
    if parsed is None:
        raise TriggerRejected("Invalid API key format.", wrong_key=True)
    key_id, secret = parsed
    if key_id != target.key_id:
        owner = key_owner(key_id)
        if owner is not None and owner != target.webhook_id:
            raise TriggerRejected("Invalid API key for this webhook.", wrong_key=True, key_id=key_id)
        raise TriggerRejected("Invalid API key.", wrong_key=True, key_id=key_id)
    if target.key_digest is None or not credentials.same_digest(target.key_digest, secret):
        raise TriggerRejected("Invalid API key.", wrong_key=True, key_id=key_id)
    if not target.key_enabled:
        raise TriggerRejected("API key is disabled.")
