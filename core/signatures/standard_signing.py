"""Signing the Standard Webhooks way (https://www.standardwebhooks.com/): what svc's own notifications carry.

``webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">``, keyed with the
base64-decoded part of the ``whsec_`` secret; a receiver checks it as ``verify_standard_webhooks`` does.
"""

from __future__ import annotations

import base64

from core.signatures.common import hmac_sha256
from core.signatures.timestamped import STANDARD_HEADERS
from schemas.verification import STANDARD_SECRET_PREFIX, standard_webhooks_key


def secret_of(key: bytes) -> str:
    """The ``whsec_`` form of a random key."""
    return STANDARD_SECRET_PREFIX + base64.b64encode(key).decode("ascii")


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac_sha256(standard_webhooks_key(secret), signed)).decode("ascii")


def signed_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three headers of a message ``message_id`` sent at Unix second ``timestamp``."""
    id_name, timestamp_name, signature_name = STANDARD_HEADERS
    return {
        id_name: message_id,
        timestamp_name: str(timestamp),
        signature_name: signature(secret, message_id, timestamp, body),
    }
