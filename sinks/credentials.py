"""Key generation, parsing and verification. Keys are stored only as SHA-256 digests."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from schemas.ids import new_id as new_id  # ids are made in one place; re-exported for key ids

CLIENT_KEY_PREFIX = "svck_"
_POWERUSER = re.compile(r"^pwrusr:([0-9a-f]{32}):([A-Za-z0-9_-]{20,200})$")
_WEBHOOK = re.compile(r"^wh:([0-9a-f]{32}):([A-Za-z0-9_-]{20,200})$")


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def same_digest(stored: str, secret: str) -> bool:
    return hmac.compare_digest(stored.encode(), digest(secret).encode())


def new_secret() -> str:
    # 32 random bytes: brute force is out of reach, so a plain SHA-256 digest is a safe store.
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    full_key: str
    secret_digest: str


def issue_client_key() -> IssuedKey:
    key_id = new_id()
    full = f"{CLIENT_KEY_PREFIX}{new_secret()}"
    return IssuedKey(key_id=key_id, full_key=full, secret_digest=digest(full))


def issue_poweruser_key() -> IssuedKey:
    key_id = new_id()
    secret = new_secret()
    return IssuedKey(key_id=key_id, full_key=f"pwrusr:{key_id}:{secret}", secret_digest=digest(secret))


def issue_webhook_key() -> IssuedKey:
    key_id = new_id()
    secret = new_secret()
    return IssuedKey(key_id=key_id, full_key=f"wh:{key_id}:{secret}", secret_digest=digest(secret))


def parse_poweruser_key(value: str) -> tuple[str, str] | None:
    match = _POWERUSER.match(value)
    return (match.group(1), match.group(2)) if match else None


def parse_webhook_key(value: str) -> tuple[str, str] | None:
    match = _WEBHOOK.match(value)
    return (match.group(1), match.group(2)) if match else None


def looks_like_client_key(value: str) -> bool:
    return value.startswith(CLIENT_KEY_PREFIX) and 20 < len(value) < 300
