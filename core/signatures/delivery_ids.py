"""Each provider's id of a delivery, the same on every retry of it, for deduplication.

Call it only after ``verify`` accepted the delivery. Where the id is in the body (Stripe, Paddle, Slack's
Events API) or in a signed header (Standard Webhooks) the signature covers it; where it is in an unsigned
header (GitHub, Shopify, GitLab, Twilio, Linear) a replay of a captured delivery may carry another id, so it
dedupes the provider's own retries, not an attacker's replays (the timestamp tolerance is what bounds those).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from core.signatures.common import RequestHeaders
from core.signatures.exceptions import SignatureRejected
from core.signatures.timestamped import STANDARD_HEADERS, SVIX_HEADERS
from schemas.verification import VerificationConfig, VerificationProvider

MAX_DELIVERY_ID_CHARS = 200
_DELIVERY_ID = re.compile(rf"^[\x21-\x7e]{{1,{MAX_DELIVERY_ID_CHARS}}}$")


def provider_delivery_id(
    config_or_provider: VerificationConfig | VerificationProvider, headers: Mapping[str, str], body: bytes
) -> str | None:
    """The delivery id, or None when the provider sends none (or one that is not a short visible string)."""
    provider = (
        config_or_provider.provider
        if isinstance(config_or_provider, VerificationConfig)
        else config_or_provider
    )
    finder = _FINDERS.get(provider)
    if finder is None:
        return None
    try:
        found = finder(RequestHeaders(headers), body)
    except SignatureRejected:
        return None
    if found is None:
        return None
    found = found.strip()
    return found if _DELIVERY_ID.match(found) else None


def _header(*names: str) -> Callable[[RequestHeaders, bytes], str | None]:
    def find(headers: RequestHeaders, body: bytes) -> str | None:
        for name in names:
            value = headers.get(name)
            if value is not None and value.strip():
                return value
        return None

    return find


def _body_field(
    name: str, *, only_when: tuple[str, str] | None = None
) -> Callable[[RequestHeaders, bytes], str | None]:
    def find(headers: RequestHeaders, body: bytes) -> str | None:
        document = _json_object(body)
        if document is None:
            return None
        if only_when is not None and document.get(only_when[0]) != only_when[1]:
            return None
        value = document.get(name)
        return value if isinstance(value, str) else None

    return find


def _json_object(body: bytes) -> dict[str, Any] | None:
    # Form bodies (Slack's slash commands and interactions) have no id; only a JSON object is parsed.
    if body.lstrip()[:1] != b"{":
        return None
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def _standard_webhooks(headers: RequestHeaders, body: bytes) -> str | None:
    for names in (STANDARD_HEADERS, SVIX_HEADERS):
        value = headers.get(names[0])
        if value is not None and value.strip():
            return value
    return None


_FINDERS: dict[VerificationProvider, Callable[[RequestHeaders, bytes], str | None]] = {
    # X-GitHub-Delivery names the event: redeliveries of it keep the same GUID.
    VerificationProvider.GITHUB: _header("X-GitHub-Delivery"),
    # The event object's id (evt_...), the same on every retry of the event.
    VerificationProvider.STRIPE: _body_field("id"),
    VerificationProvider.STANDARD_WEBHOOKS: _standard_webhooks,
    # Only the Events API has an id (event_id in the event_callback envelope); slash commands and
    # interactivity payloads have none.
    VerificationProvider.SLACK: _body_field("event_id", only_when=("type", "event_callback")),
    VerificationProvider.SHOPIFY: _header("X-Shopify-Webhook-Id", "Shopify-Webhook-Id"),
    # Idempotency-Key stays the same across GitLab's retries and resends (gitlab-org/gitlab#388692); a GitLab
    # from before it sends only X-Gitlab-Event-UUID.
    VerificationProvider.GITLAB: _header("Idempotency-Key", "X-Gitlab-Event-UUID"),
    VerificationProvider.TWILIO: _header("I-Twilio-Idempotency-Token"),
    # Linear-Delivery is per delivery; the body's webhookId names the webhook, not the delivery.
    VerificationProvider.LINEAR: _header("Linear-Delivery"),
    VerificationProvider.PADDLE: _body_field("notification_id"),
}
