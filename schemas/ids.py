"""Ids of everything svc creates: UUIDv7 (RFC 9562) as 32 hex digits.

The first 48 bits are the Unix time in milliseconds, then 74 random bits. Ids made one after another sort one
after another, so the rows a moment's writes insert (history entries, payloads, jobs, and the indexes on their
ids) land on the same few B-tree pages instead of one random page each: a group commit writes a handful of
pages, and the hot pages stay cached as the tables grow. Ids made before (random UUIDv4, same shape) stay
valid.
"""

from __future__ import annotations

import os
import time

_48_BITS = (1 << 48) - 1


def new_id() -> str:
    """A new UUIDv7 as 32 lowercase hex digits."""
    unix_ms = time.time_ns() // 1_000_000 & _48_BITS
    value = unix_ms << 80 | int.from_bytes(os.urandom(10), "big")
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC 9562 variant
    return f"{value:032x}"
