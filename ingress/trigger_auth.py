"""Authentication of a webhook delivery, in exactly the order of the spec's trigger error table."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from sinks import credentials
from sinks.db.deliveries import TriggerTarget

_WEBHOOK_ID = re.compile(r"^[0-9a-f]{32}$")


class TriggerRejected(Exception):
    """A 401 with body ``{"error": message}``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
        raise TriggerRejected("Invalid API key format.")
    key_id, secret = parsed
    if key_id != target.key_id:
        owner = key_owner(key_id)
        if owner is not None and owner != target.webhook_id:
            raise TriggerRejected("Invalid API key for this webhook.")
        raise TriggerRejected("Invalid API key.")
    if target.key_digest is None or not credentials.same_digest(target.key_digest, secret):
        raise TriggerRejected("Invalid API key.")
    if not target.key_enabled:
        raise TriggerRejected("API key is disabled.")
