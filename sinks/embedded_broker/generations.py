"""The embedded broker's signal: which topic generation producers write to and consumers read, and whether
the broker is away (restarting after a crash).

``svc up`` keeps the signal in a small file of its data directory (``SVC_EMBEDDED_BROKER_SIGNAL_FILE`` in its
children's environment); every producer (``sinks/kafka.Publisher``) and every worker's consumer maps it and
reads it per send or per check: a copy of a few bytes, no system call. A renewal (``rotation.py``) moves the
producers to generation N+1 while the consumers read N and N+1, then drops N.

Generation 0 has the topics' plain names (``settings.topic(name)``); generation k has ``<name>.g<k>``. A
process started without the file (Apache Kafka, a bare ``svc ingress``) always reads generation 0, present.
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

# away (1 byte, 3 of padding), the produce generation, the first and the last generation read.
_LAYOUT = struct.Struct("<B3xIII")
SIZE = _LAYOUT.size


@dataclass(frozen=True, slots=True)
class Generations:
    produce: int = 0
    read_from: int = 0
    read_to: int = 0
    away: bool = False

    @property
    def read(self) -> range:
        return range(self.read_from, self.read_to + 1)

    def pack(self) -> bytes:
        return _LAYOUT.pack(int(self.away), self.produce, self.read_from, self.read_to)

    @classmethod
    def unpack(cls, raw: bytes) -> Generations:
        away, produce, read_from, read_to = _LAYOUT.unpack(raw)
        return cls(produce, read_from, max(read_from, read_to), bool(away))


FIRST = Generations()


class GenerationSignal:
    """The reading side: :meth:`current` copies the shared map's few bytes."""

    def __init__(self, view: mmap.mmap | None) -> None:
        self._view = view

    @classmethod
    def fixed(cls) -> GenerationSignal:
        """Generation 0, present, for ever: no embedded broker is renewed under this process."""
        return cls(None)

    @classmethod
    def open(cls, path: Path | None) -> GenerationSignal:
        """The file ``svc up`` writes; a missing or short file (or no path) reads as :meth:`fixed`."""
        if path is None:
            return cls.fixed()
        try:
            with path.open("rb") as handle:
                return cls(mmap.mmap(handle.fileno(), SIZE, access=mmap.ACCESS_READ))
        except (OSError, ValueError):
            return cls.fixed()

    def current(self) -> Generations:
        view = self._view
        if view is None:
            return FIRST
        # Read until two copies agree: the writer changes the bytes rarely, never in one atomic step.
        raw = view[:SIZE]
        while (again := view[:SIZE]) != raw:
            raw = again
        return Generations.unpack(raw)

    def away(self) -> bool:
        return self._view is not None and self._view[0] != 0

    def close(self) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None


class GenerationNotice:
    """The writing side, for ``svc up``: written by the supervisor (a crash) and the renewal (a thread)."""

    def __init__(self, path: Path, start: Generations = FIRST) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._lock = threading.Lock()
        self._current = start
        self._write(start)

    @property
    def current(self) -> Generations:
        with self._lock:
            return self._current

    def set(self, generations: Generations) -> None:
        with self._lock:
            self._current = generations
            self._write(generations)

    def replace(self, expected: Generations, generations: Generations) -> bool:
        """Set ``generations`` if the signal still says ``expected``: a renewal does not undo what a crash
        restart wrote meanwhile."""
        with self._lock:
            if self._current != expected:
                return False
            self._current = generations
            self._write(generations)
            return True

    def set_away(self, away: bool) -> None:
        with self._lock:
            self._current = Generations(
                self._current.produce, self._current.read_from, self._current.read_to, away
            )
            self._write(self._current)

    def _write(self, generations: Generations) -> None:
        # One write to the page the readers map: they see it at their next read.
        os.pwrite(self._fd, generations.pack(), 0)

    def close(self) -> None:
        os.close(self._fd)
