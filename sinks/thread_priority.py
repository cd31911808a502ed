"""The niceness of the threads that run queries (``SVC_QUERY_NICENESS``): DuckDB's own threads and the ones
that call it. Linux schedules threads, and a thread's niceness is its own (``setpriority`` on its id), so a
query's threads yield the CPU to the service's other work in the same process and beside it (an ingress
answering triggers, a worker's deliveries) while a core is contended, and run at full speed while none is.

DuckDB starts its worker threads when a database opens, and names none of them: those are the threads
that appeared across the open that no ``threading.Thread`` owns (``new_threads``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator


def thread_ids() -> frozenset[int]:
    """The ids of this process's threads (Linux's /proc; empty where it cannot be read)."""
    try:
        return frozenset(int(name) for name in os.listdir("/proc/self/task"))
    except OSError:
        return frozenset()


def new_threads(before: frozenset[int], after: frozenset[int], python: frozenset[int]) -> frozenset[int]:
    """The threads in ``after`` that were not in ``before`` and that Python did not start."""
    return after - before - python


def lower(thread_id: int, niceness: int) -> None:
    """Give ``thread_id`` at least ``niceness``, and at 19 Linux's idle class as well, as the script sandbox
    has it: it runs only on CPU nothing else wants (never raises: a thread gone meanwhile is left alone)."""
    with contextlib.suppress(OSError):
        if os.getpriority(os.PRIO_PROCESS, thread_id) < niceness:
            os.setpriority(os.PRIO_PROCESS, thread_id, niceness)
        if niceness == 19 and hasattr(os, "SCHED_IDLE"):
            os.sched_setscheduler(thread_id, os.SCHED_IDLE, os.sched_param(0))


def lower_this_thread(niceness: int) -> None:
    """Lower the calling thread's priority (a thread pool's initializer)."""
    if niceness > 0:
        lower(threading.get_native_id(), niceness)


@contextlib.contextmanager
def lowering_new_threads(niceness: int) -> Iterator[None]:
    """Lower every native thread started inside the block (DuckDB's, at a database's open)."""
    if niceness <= 0:
        yield
        return
    before = thread_ids()
    yield
    python = frozenset(t.native_id for t in threading.enumerate() if t.native_id is not None)
    for thread_id in new_threads(before, thread_ids(), python):
        lower(thread_id, niceness)
