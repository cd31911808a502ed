"""Whether the embedded broker is away: being started afresh (``Supervisor.renew_broker``) or started again
after a crash. ``svc up`` keeps one byte in a file of its data directory (``SVC_BROKER_ABSENCE_FILE`` in its
children's environment); each ingress process maps the file and reads that byte before it produces.

While the broker is away a produce can only wait for it (one retry backoff or more) and its record would be
lost with the old broker anyway, so the ingress does not try: the work it accepts meanwhile is already
committed to the metadata database, and the workers started on the new broker hand it over (the sweep of
due attempts, the reconcilers; ``Settings.queued_grace_at``). A caller is answered at once instead of
waiting out the broker's restart.

The map is read, never written, by the ingress: one byte read per produce, no system call. A process started
without the variable (an external broker, a bare ``svc ingress``) never sees the broker away.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

AWAY, PRESENT = b"\x01", b"\x00"


class BrokerAbsence:
    """The reading side: :meth:`away` is one byte of a shared map."""

    def __init__(self, view: mmap.mmap | None) -> None:
        self._view = view

    @classmethod
    def never(cls) -> BrokerAbsence:
        return cls(None)

    @classmethod
    def open(cls, path: Path | None) -> BrokerAbsence:
        """The file ``svc up`` writes; a missing or empty file (or no path) reads as never away."""
        if path is None:
            return cls.never()
        try:
            with path.open("rb") as handle:
                return cls(mmap.mmap(handle.fileno(), 1, access=mmap.ACCESS_READ))
        except (OSError, ValueError):
            return cls.never()

    def away(self) -> bool:
        return self._view is not None and self._view[0] == AWAY[0]

    def close(self) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None


class BrokerAbsenceNotice:
    """The writing side, for ``svc up``: the file starts PRESENT (whatever a previous run left in it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self.set_away(False)

    def set_away(self, away: bool) -> None:
        # A write to the page the readers map: they see it at their next read.
        os.pwrite(self._fd, AWAY if away else PRESENT, 0)

    def close(self) -> None:
        os.close(self._fd)
