# mypy: disable-error-code="import-untyped"
"""Thread pools of their own for pyiceberg's bulk work, so it never queues ahead of the table writer.

pyiceberg hands the parallel part of every table operation (a scan's file reads, a write's files, a
commit's manifest reads) to one thread pool per process (``ExecutorFactory``), first come first served. In
a worker that pool serves the table writer's commits of every company's tables, and bulk work handed to it
all at once (a compaction reading thousands of small files, a load submitting a file per partition) would
queue each commit behind it.

Inside ``separate_pool(kind)`` pyiceberg's pool, for the calling thread only, is the kind's own: a small
pool per kind and process (``WORKERS`` threads), shared by every thread doing that kind of work. The
writer's commits keep pyiceberg's pool to themselves. Installed on import (``ExecutorFactory.get_or_create``
is looked up on every call pyiceberg makes).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from enum import StrEnum
from typing import ParamSpec, TypeVar

from pyiceberg.utils.concurrent import ExecutorFactory

P = ParamSpec("P")
T = TypeVar("T")
# Threads per kind: the bulk work is disk- or network-bound reads and writes of whole files.
WORKERS = 2


class Kind(StrEnum):
    MAINTENANCE = "maintenance"  # compaction's reads and writes, snapshot expiry, orphan listing
    LOADS = "loads"  # a load's partitioned files
    MUTATIONS = "mutations"  # an svcdb UPDATE/DELETE's scan of the matched files


_calling = threading.local()
_guard = threading.Lock()
_pools: dict[Kind, ThreadPoolExecutor] = {}
_pools_pid: int | None = None
_shared = ExecutorFactory.get_or_create


def _pool(kind: Kind) -> ThreadPoolExecutor:
    global _pools_pid
    with _guard:
        if _pools_pid != os.getpid():
            # A forked child has none of its parent's threads: its pools are made anew, as pyiceberg does.
            _pools.clear()
            _pools_pid = os.getpid()
        found = _pools.get(kind)
        if found is None:
            found = _pools[kind] = ThreadPoolExecutor(WORKERS, thread_name_prefix=f"iceberg-{kind.value}")
        return found


def _get_or_create() -> Executor:
    own: Executor | None = getattr(_calling, "pool", None)
    return own if own is not None else _shared()


@contextmanager
def separate_pool(kind: Kind) -> Iterator[None]:
    """pyiceberg's parallel work of the calling thread goes to ``kind``'s pool within the block."""
    previous = getattr(_calling, "pool", None)
    _calling.pool = _pool(kind)
    try:
        yield
    finally:
        _calling.pool = previous


def in_pool(kind: Kind) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """A function whose calls run inside ``separate_pool(kind)``."""

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
            with separate_pool(kind):
                return function(*args, **kwargs)

        return wrapper

    return decorate


def pool_in_use() -> Executor:
    """The pool pyiceberg's calls from this thread use now."""
    return ExecutorFactory.get_or_create()


ExecutorFactory.get_or_create = staticmethod(_get_or_create)  # type: ignore[method-assign]
