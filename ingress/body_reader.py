"""A blocking, file-like view of a request body, for sync code run in a worker thread.

Each ``read`` pulls the next chunks from the ASGI stream on the event loop, so a large body (an upload part)
flows to disk chunk by chunk and is never held in memory whole. The server hands the body over in small
pieces (tens of KB); one trip to the event loop gathers up to ``GATHER_BYTES`` of them, since a trip per
piece cost more CPU than hashing and writing the data.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

from anyio import from_thread

GATHER_BYTES = 1024 * 1024


class BodyTooLong(Exception):
    """The body passed the reader's byte limit; reading stopped there."""


class BodyReader(io.RawIOBase):
    def __init__(self, chunks: AsyncIterator[bytes], limit: int) -> None:
        super().__init__()
        self._chunks = chunks
        self._limit = limit
        self._pending = b""
        self._done = False
        self.received = 0

    def readable(self) -> bool:
        return True

    async def _next_chunk(self) -> bytes | None:
        """The next pieces of the body joined, up to about ``GATHER_BYTES``; None at its end."""
        pieces: list[bytes] = []
        gathered = 0
        while gathered < GATHER_BYTES and gathered + self.received <= self._limit:
            try:
                piece = await self._chunks.__anext__()
            except StopAsyncIteration:
                break
            pieces.append(piece)
            gathered += len(piece)
        return b"".join(pieces) if pieces else None

    def _fill(self) -> None:
        while not self._pending and not self._done:
            # Must run in a thread started by anyio (run_in_threadpool), which from_thread.run needs.
            chunk = from_thread.run(self._next_chunk)
            if chunk is None:
                self._done = True
                return
            self.received += len(chunk)
            if self.received > self._limit:
                raise BodyTooLong(f"body passed {self._limit} bytes")
            self._pending = chunk

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while chunk := self.read(1024 * 1024):
                parts.append(chunk)
            return b"".join(parts)
        self._fill()
        taken, self._pending = self._pending[:size], self._pending[size:]
        return taken

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
