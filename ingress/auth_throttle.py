"""Failed-authentication lockouts per source address and per key id, shared by the ingress processes.

After ``per_address`` failed authentications in a minute (a fixed window, like the rate limits) from one
address, or ``per_key`` against one key id, every further attempt from that address or with that key id is
refused with 429 and ``Retry-After`` until the window ends, without the key being checked: a correct key is
refused too, so guessing gains nothing from the answers. An attempt counts as failed when a key was
presented and refused; a missing key does not count.

The address is the connection's peer as the server reports it; an IPv6 address counts for its /64, which one
host usually holds whole. Client keys (``svck_...``) carry no key id, so only their address counts.

The counts are :class:`ingress.shared_counts.SharedCounts`: with P processes an address or key id gets at
most ``limit + (P - 1) * quantum`` failures checked in a window, plus the attempts a process checks at the
same moment (its worker threads), since an attempt is counted once it has failed.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass

from starlette.requests import Request

from ingress.ratelimit import MINUTE, quantum, retry_after, window
from ingress.shared_counts import SharedCounts, Window
from sinks import credentials

FAILURE_MIN_QUANTUM = 4
"""Failures a process may count before the shared table confirms them (it flushes at half of it); an
attempt beyond it waits for that flush."""
FLUSH_WAIT_SECONDS = 2.0
"""How long an attempt waits for a flush before it is refused (Retry-After: 1) all the same."""
LOCKED_OUT = "Too many failed authentications from this address or for this key"


def address_key(host: str | None) -> str | None:
    """What one source address counts as: IPv4 itself, IPv6 its /64 (IPv4-mapped: the IPv4 address)."""
    if not host:
        return None
    if ":" not in host:  # IPv4 as the server reports it (or a name): already one per address
        return host[:100]
    return _ipv6_key(host)


@functools.lru_cache(maxsize=4096)
def _ipv6_key(host: str) -> str:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:100]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def peer_address(request: Request) -> str | None:
    """The connection's peer as the server reports it; X-Forwarded-For is not read here."""
    return request.client.host if request.client else None


def poweruser_key_id(presented: str | None) -> str | None:
    parsed = credentials.parse_poweruser_key(presented) if presented else None
    return parsed[0] if parsed else None


def webhook_key_id(presented: str | None) -> str | None:
    parsed = credentials.parse_webhook_key(presented) if presented else None
    return parsed[0] if parsed else None


@dataclass(frozen=True)
class _Limit:
    scope: str
    per_minute: int
    quantum: int


class AuthThrottle:
    def __init__(
        self,
        counts: SharedCounts | None = None,
        *,
        per_address: int = 20,
        per_key: int = 20,
        local_share: float = 0.02,
    ) -> None:
        self._counts = counts if counts is not None else SharedCounts()
        self._address = _Limit(
            "auth-address", per_address, quantum(per_address, local_share, FAILURE_MIN_QUANTUM)
        )
        self._key = _Limit("auth-key", per_key, quantum(per_key, local_share, FAILURE_MIN_QUANTUM))
        # Until this minute's end some failure was counted here; before it, nothing can be locked out (a
        # process learns the others' failures of an address or key id only once it counted one itself).
        self._failures_until = 0.0

    def _windows(self, address: str | None, key_id: str | None, now: float) -> list[tuple[_Limit, Window]]:
        found = []
        where = address_key(address)
        if where is not None:
            found.append((self._address, window(self._address.scope, where, now, MINUTE)))
        if key_id:
            found.append((self._key, window(self._key.scope, key_id, now, MINUTE)))
        return found

    def _state(self, address: str | None, key_id: str | None, now: float) -> tuple[int | None, bool]:
        """Seconds the address or key id is locked out (None: it is not), and whether only this process's
        used-up share of unconfirmed failures locks it (then its next flush decides)."""
        if now >= self._failures_until:  # the common case, on every request: no failure to look at
            return None, False
        longest: int | None = None
        share_only = True
        with self._counts.hold() as view:
            for limit, current in self._windows(address, key_id, now):
                estimate, unconfirmed = view.read(current)
                if estimate >= limit.per_minute:
                    wait, share_only = retry_after(current.end, now), False
                elif unconfirmed >= limit.quantum:
                    wait = 1
                else:
                    continue
                longest = wait if longest is None else max(longest, wait)
        return longest, longest is not None and share_only

    def lockout(
        self, address: str | None, key_id: str | None, now: float, *, wait_seconds: float = 0.0
    ) -> int | None:
        """Seconds until the address and key id may try again; None when neither is locked out.

        With ``wait_seconds`` (worker threads only) a used-up share waits for a flush rather than refuse."""
        locked, share_only = self._state(address, key_id, now)
        if share_only and wait_seconds > 0:
            self._counts.wait_flushed(wait_seconds)
            locked, _ = self._state(address, key_id, now)
        return locked

    async def lockout_async(
        self, address: str | None, key_id: str | None, now: float, *, wait_seconds: float
    ) -> int | None:
        """:meth:`lockout` for the event loop: a used-up share awaits the next flush."""
        locked, share_only = self._state(address, key_id, now)
        if share_only:
            await self._counts.wait_flushed_async(wait_seconds)
            locked, _ = self._state(address, key_id, now)
        return locked

    def failed(self, address: str | None, key_id: str | None, now: float) -> None:
        with self._counts.hold() as view:
            for limit, current in self._windows(address, key_id, now):
                view.add(current, 1, limit.quantum)
                self._failures_until = max(self._failures_until, current.end)
