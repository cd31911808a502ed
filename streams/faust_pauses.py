"""Faust's and mode's fixed pauses at a worker's start and stop, less the pause (applied by svc/patches.py).

Each replacement is the original's body less its sleep; ``tests/unit/test_patches.py`` checks that the
originals still read as they did when these were written.
"""

from __future__ import annotations

import asyncio
from typing import Any

SENTINEL_SECONDS = 0.05
"""The last turn of a stopping worker's event loop before it closes (mode sleeps 1 s there)."""


async def table_manager_on_start(self: Any) -> None:
    """``faust.tables.manager.TableManager.on_start`` without its first ``await self.sleep(1.0)``: a second
    for Faust tables to register before the worker subscribes. svc defines no Faust table (state lives in
    the database), and every worker start waited that second before it joined its consumer group."""
    if not self.should_stop:
        await self._update_channels()
        await self.recovery.start()


async def sentinel_task(self: Any) -> None:
    """``mode.worker.Worker._sentinel_task``: one more turn of the loop for callbacks still scheduled, once
    every task has been gathered, before the loop closes; 50 ms instead of a second at every worker stop."""
    await asyncio.sleep(SENTINEL_SECONDS)
