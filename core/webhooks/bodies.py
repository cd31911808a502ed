"""A trigger's request body kept by reference: which bodies go to the object store, under which key, and how
a body read back is checked against what the database recorded of it.

A body over ``SVC_INLINE_BODY_BYTES`` (bytes as received) is stored as one object; its payload row keeps
the key, the size and the SHA-256, and an empty ``request_payload``. Every reader (the history, a replay)
turns the row back into the body's text the same way, and a body whose object is gone or damaged is
reported as such instead of being read as an empty body.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

# Every body object lives under this folder of the object store, by company, then webhook, then payload row.
BODIES_PREFIX = "webhook-bodies"
MISSING = "The stored request body is missing: its object is no longer in the object store"
DAMAGED = "The stored request body is damaged: its object no longer matches the size and SHA-256 recorded"


def by_reference(size: int, inline_limit: int) -> bool:
    """Whether a body of ``size`` bytes goes to the object store rather than into its payload row."""
    return size > inline_limit


def body_key(company_id: str, webhook_id: str, payload_id: str) -> str:
    return f"{BODIES_PREFIX}/{company_id}/{webhook_id}/{payload_id}"


def webhook_prefix(company_id: str, webhook_id: str) -> str:
    """The folder of every body object of one webhook."""
    return f"{BODIES_PREFIX}/{company_id}/{webhook_id}/"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_of(data: bytes) -> str:
    """A body's text as the history shows it and scripts read it: UTF-8, undecodable bytes replaced."""
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class BodyRef:
    """Where a body kept by reference is, and what a reader checks the object against."""

    key: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Offloaded:
    """A body the trigger put in the object store, for the new payload row (id ``payload_id``) to record."""

    payload_id: str
    ref: BodyRef


@dataclass(frozen=True)
class StoredBody:
    """A payload row's body as the database holds it: its text inline, or a reference (``inline`` empty)."""

    inline: str
    ref: BodyRef | None = None


@dataclass(frozen=True)
class Body:
    """A stored body read back: its text, or ``problem`` (``MISSING`` or ``DAMAGED``) and an empty text."""

    text: str
    problem: str | None = None


def checked(data: bytes, ref: BodyRef) -> Body:
    """The body in ``data`` when it is the one ``ref`` recorded; ``DAMAGED`` otherwise."""
    if len(data) != ref.size or digest(data) != ref.sha256:
        return Body("", DAMAGED)
    return Body(text_of(data))


def stored_body(inline: str, key: str | None, size: int | None, sha256: str | None) -> StoredBody:
    """A payload row's columns as a ``StoredBody``."""
    if key is None or size is None or sha256 is None:
        return StoredBody(inline)
    return StoredBody(inline, BodyRef(key, size, sha256))
