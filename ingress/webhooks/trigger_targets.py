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

from sinks.db.webhooks.deliveries import TriggerTarget

MAX_ENTRIES = 10_000
"""At most this many webhooks are kept; when full, the cache starts again from empty."""


class TriggerTargets:
    def __init__(
        self,
        seconds: float,
        *,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._seconds = seconds
        self._max_entries = max_entries
        self._clock = clock
        self._kept: dict[str, tuple[float, TriggerTarget]] = {}
        self._lock = threading.Lock()
        self._forgotten = 0  # counts calls of forget: a row read before one is not kept

    def get(self, webhook_id: str, load: Callable[[str], TriggerTarget | None]) -> TriggerTarget | None:
        """The webhook's target as kept, or as ``load`` reads it now (kept if found)."""
        if self._seconds <= 0:
            return load(webhook_id)
        now = self._clock()
        kept = self._kept.get(webhook_id)
        if kept is not None and kept[0] > now:
            return kept[1]
        forgotten = self._forgotten
        target = load(webhook_id)
        with self._lock:
            if target is None:
                self._kept.pop(webhook_id, None)
            elif forgotten == self._forgotten:
                if len(self._kept) >= self._max_entries:
                    self._kept.clear()
                self._kept[webhook_id] = (now + self._seconds, target)
        return target

    def forget(self, webhook_id: str | None = None) -> None:
        """Read ``webhook_id`` (every webhook, when None) from the database on its next delivery."""
        with self._lock:
            self._forgotten += 1
            if webhook_id is None:
                self._kept.clear()
            else:
                self._kept.pop(webhook_id, None)

    def forget_after_commit(self, session: Session, webhook_id: str) -> None:
        """Forget ``webhook_id`` once ``session``'s transaction has committed."""
        event.listen(session, "after_commit", lambda _session: self.forget(webhook_id), once=True)
