"""Trigger deduplication: which key names a delivery, whether it is acceptable, and how long it is kept.

A delivery's key is the caller's ``Idempotency-Key`` header or, when the webhook checks a provider signature,
the provider's own delivery id (``core.signatures.provider_delivery_id``: X-GitHub-Delivery, webhook-id,
Stripe's event id, ...). The header wins when both are there: a caller that names its deliveries means it.
A key is per webhook; the window is ``webhookConfig.deduplication.windowSeconds``.

Pure (the standard library and ``schemas``), so the ingress can decide before anything is read or written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from schemas.webhooks import DEFAULT_DEDUP_WINDOW_SECONDS

IDEMPOTENCY_HEADER = "idempotency-key"
CONFIG_FIELD = "deduplication"
MAX_KEY_CHARS = 255
_PRINTABLE_ASCII = re.compile(rf"^[\x20-\x7e]{{1,{MAX_KEY_CHARS}}}$")


class InvalidIdempotencyKey(ValueError):
    """The caller's ``Idempotency-Key`` cannot be used; the message is the trigger's 400."""


def window_seconds(config: Mapping[str, Any]) -> int | None:
    """The webhook's deduplication window in seconds, or None when it switched deduplication off.

    A webhook that never set ``deduplication`` dedupes within the default window whenever a key is present.
    """
    settings = config.get(CONFIG_FIELD)
    if settings is None:
        return DEFAULT_DEDUP_WINDOW_SECONDS
    if settings.get("enabled", True) is False:
        return None
    return int(settings.get("windowSeconds", DEFAULT_DEDUP_WINDOW_SECONDS))


def checked_key(values: Sequence[str]) -> str:
    """The one ``Idempotency-Key`` the caller sent, or ``InvalidIdempotencyKey`` saying what is wrong."""
    if len(values) != 1:
        raise InvalidIdempotencyKey("Idempotency-Key header sent more than once; send one key per request")
    value = values[0]
    if not _PRINTABLE_ASCII.match(value):
        raise InvalidIdempotencyKey(
            f"Idempotency-Key must be 1-{MAX_KEY_CHARS} printable ASCII characters "
            f"(got {len(value)} characters{_non_ascii_note(value)})"
        )
    return value


def _non_ascii_note(value: str) -> str:
    # Names the problem, never the value: a key may be something the caller would rather not see logged.
    return ", some outside printable ASCII" if any(not " " <= c <= "~" for c in value) else ""


def delivery_key(idempotency_keys: Sequence[str], provider_id: Callable[[], str | None] | None) -> str | None:
    """The delivery's deduplication key: the caller's ``Idempotency-Key`` (checked), else the provider's
    delivery id (``provider_id`` is called only then, as it may parse the body), else None."""
    if idempotency_keys:
        return checked_key(idempotency_keys)
    if provider_id is None:
        return None
    return provider_id()


def expires_at(seen_at: datetime, window: int) -> datetime:
    if seen_at.tzinfo is None:
        raise ValueError("naive datetime refused: use timezone-aware UTC")
    return seen_at + timedelta(seconds=window)
