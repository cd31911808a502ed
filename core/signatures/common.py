"""What every provider's check shares: the request as signed, header access, timestamps, digest comparison."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from core.signatures.exceptions import SignatureRejected

# A signature header is short (a Stripe header with a few rotated secrets is under 1 KiB); anything longer is
# refused before it is parsed.
MAX_HEADER_CHARS = 4096
# Signatures offered in one header (Stripe's v1 entries, Standard Webhooks' list, Paddle's h1 entries).
MAX_SIGNATURES = 16
_VISIBLE_ASCII = re.compile(r"^[\x20-\x7e]*$")
# Unix seconds of 9 to 10 digits, no sign and no leading zero: the form every provider sends.
_UNIX_SECONDS = re.compile(r"^[1-9][0-9]{8,9}$")
_UNIX_MILLISECONDS = re.compile(r"^[1-9][0-9]{11,12}$")
_HEX = re.compile(r"^[0-9a-fA-F]+$")


class RequestHeaders:
    """Case-insensitive header access. A header sent twice with different values is refused when it is read:
    which copy a proxy in front of us looked at cannot be known."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        values: dict[str, str] = {}
        conflicting: set[str] = set()
        for key, value in headers.items():
            name = key.lower()
            if name in values and values[name] != value:
                conflicting.add(name)
            values.setdefault(name, value)
        self._values = values
        self._conflicting = conflicting

    def get(self, name: str) -> str | None:
        key = name.lower()
        if key in self._conflicting:
            raise SignatureRejected(f"{name} header sent more than once")
        value = self._values.get(key)
        if value is None:
            return None
        if len(value) > MAX_HEADER_CHARS:
            raise SignatureRejected(f"{name} header longer than {MAX_HEADER_CHARS} characters")
        if not _VISIBLE_ASCII.match(value):
            raise SignatureRejected(f"{name} header has characters outside printable ASCII")
        return value

    def require(self, name: str) -> str:
        value = self.get(name)
        if value is None or not value.strip():
            raise SignatureRejected(f"missing {name} header")
        return value.strip()


@dataclass(frozen=True)
class SignedRequest:
    """The parts of a delivery a signature can cover."""

    method: str
    url: str
    headers: RequestHeaders
    body: bytes
    now: datetime


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


def digests_match(expected: bytes, received: bytes) -> bool:
    return hmac.compare_digest(expected, received)


def any_matches(digest: bytes, candidates: list[bytes]) -> bool:
    """Constant-time comparison against each candidate; every one is compared (no early exit)."""
    matched = False
    for candidate in candidates:
        matched |= hmac.compare_digest(digest, candidate)
    return matched


def decode_hex(value: str, what: str) -> bytes:
    if not _HEX.match(value) or len(value) % 2:
        raise SignatureRejected(f"{what} is not hexadecimal")
    return bytes.fromhex(value)


def decode_base64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as error:
        raise SignatureRejected(f"{what} is not base64") from error


def parse_unix_seconds(value: str, what: str) -> int:
    if not _UNIX_SECONDS.match(value):
        raise SignatureRejected(f"{what} is not a Unix time in seconds")
    return int(value)


def parse_unix_milliseconds(value: str, what: str) -> int:
    if not _UNIX_MILLISECONDS.match(value):
        raise SignatureRejected(f"{what} is not a Unix time in milliseconds")
    return int(value)


def check_fresh(signed_at: float, now: datetime, tolerance_seconds: int, what: str) -> None:
    """Refuse a timestamp more than the tolerance away from ``now``, in the past (a replay) or in the future
    (a delivery signed ahead of time to be replayed later)."""
    if now.tzinfo is None:
        raise ValueError("naive datetime refused: use timezone-aware UTC")
    skew = now.timestamp() - signed_at
    if abs(skew) > tolerance_seconds:
        direction = "old" if skew > 0 else "in the future"
        raise SignatureRejected(
            f"{what} is {abs(skew):.0f} s {direction}, over the tolerance of {tolerance_seconds} s"
        )
