"""Ids of everything svc creates: UUIDv7 (RFC 9562) as 32 hex digits.

The first 48 bits are the Unix time in milliseconds, then 74 random bits. Ids made one after another sort one
after another, so the rows a moment's writes insert (history entries, payloads, jobs, and the indexes on their
ids) land on the same few B-tree pages instead of one random page each: a group commit writes a handful of
pages, and the hot pages stay cached as the tables grow. Ids made before (random UUIDv4, same shape) stay
valid.
"""

from __future__ import annotations

import os
import threading
import time

_48_BITS = (1 << 48) - 1
# Random bits come from the OS a few hundred ids at a time: os.urandom releases the GIL around its system
# call, and on a busy process each release let another thread take the interpreter for up to a switch
# interval (5 ms) before the caller got it back: two or three ids per webhook trigger, on the event loop.
_IDS_PER_REFILL = 400
_lock = threading.Lock()
_pool = b""
_offset = 0


def _random_80_bits() -> int:
    global _pool, _offset
    with _lock:
        if _offset + 10 > len(_pool):
            _pool, _offset = os.urandom(10 * _IDS_PER_REFILL), 0
        chunk = _pool[_offset : _offset + 10]
        _offset += 10
    return int.from_bytes(chunk, "big")


def _forget_pool() -> None:
    """In a forked child: its parent's unused bytes would give both processes the same ids."""
    global _lock, _pool, _offset
    _lock, _pool, _offset = threading.Lock(), b"", 0


os.register_at_fork(after_in_child=_forget_pool)


def new_id() -> str:
    """A new UUIDv7 as 32 lowercase hex digits."""
    unix_ms = time.time_ns() // 1_000_000 & _48_BITS
    value = unix_ms << 80 | _random_80_bits()
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC 9562 variant
    return f"{value:032x}"
