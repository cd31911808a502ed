"""The public trigger's webhook lookups, kept for a moment.

Every delivery needs its webhook's row (enabled, configuration, key digest). Reading it costs the ingress
about a fifth of its CPU per delivery at a thousand a second, though the row changes rarely. A row found is
kept for ``SVC_TRIGGER_CACHE_SECONDS`` (1 s by default; 0 reads the database on every delivery). A webhook
not found is not kept, so one created a moment ago is found at once.

A change made through this ingress's API (update, enable or disable, delete, a new key) takes effect on the
very next delivery: the route forgets the webhook once its transaction has committed (``forget_after_commit``;
forgetting before the commit would let a delivery in between keep the old row). A change made elsewhere
(another ingress process, the admin CLI, the database by hand) is seen within the cache's seconds.
Failed authentications that need another key's owner still read the database.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.orm import Session

from core.expiring import Expiring
from sinks.db.webhooks.deliveries import TriggerTarget

MAX_ENTRIES = 10_000
"""At most this many webhooks are kept; when full, the least recently used goes."""


class TriggerTargets:
    def __init__(
        self,
        seconds: float,
        *,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._seconds = seconds
        self._clock = clock
        self._kept: Expiring[str, TriggerTarget] = Expiring(seconds, max_entries, clock=clock)
        self._lock = threading.Lock()
        self._forgotten = 0  # counts calls of forget: a row read before one is not kept

    def get(self, webhook_id: str, load: Callable[[str], TriggerTarget | None]) -> TriggerTarget | None:
        """The webhook's target as kept, or as ``load`` reads it now (kept if found)."""
        if self._seconds <= 0:
            return load(webhook_id)
        kept = self._kept.get(webhook_id)
        if kept is not None:
            return kept
        now = self._clock()
        forgotten = self._forgotten
        target = load(webhook_id)
        with self._lock:
            if target is None:
                self._kept.discard(webhook_id)
            elif forgotten == self._forgotten:
                self._kept.put(webhook_id, target, now)
        return target

    def forget(self, webhook_id: str | None = None) -> None:
        """Read ``webhook_id`` (every webhook, when None) from the database on its next delivery."""
        with self._lock:
            self._forgotten += 1
            if webhook_id is None:
                self._kept.clear()
            else:
                self._kept.discard(webhook_id)

    def forget_after_commit(self, session: Session, webhook_id: str) -> None:
        """Forget ``webhook_id`` once ``session``'s transaction has committed."""
        event.listen(session, "after_commit", lambda _session: self.forget(webhook_id), once=True)
