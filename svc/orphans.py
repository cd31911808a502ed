"""A child of ``svc up`` that outlives it stops within a deadline.

``svc up`` starts its children with a parent-death signal (SIGTERM, ``svc/children.py``): if it dies without
stopping them (SIGKILL, an OOM kill), each child is asked to stop as if ``svc up`` had asked. A child whose
graceful stop hangs (a worker whose broker died with ``svc up``, say) would then run on with nobody
left to kill it, and could join a later stack's consumer group on a reused port. So a child that ``svc up``
started (``SVC_SUPERVISOR_PID`` in its environment) watches its parent: once the parent is gone it waits the
shutdown timeout, for the graceful stop to finish, then exits at once. A process started any other way (a
container's entrypoint, a shell) watches nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)
SUPERVISOR_PID = "SVC_SUPERVISOR_PID"
POLL_SECONDS = 1.0


def watch(
    parent_pid: int,
    grace_seconds: float,
    *,
    parent: Callable[[], int] = os.getppid,
    sleep: Callable[[float], None] = time.sleep,
    leave: Callable[[int], None] = os._exit,
) -> None:
    """Return never while ``parent()`` is ``parent_pid``; once it is not, ``leave(1)`` after the grace."""
    while parent() == parent_pid:
        sleep(POLL_SECONDS)
    sleep(grace_seconds)
    log.error("svc up is gone and this process did not stop within the shutdown timeout; exiting")
    logging.shutdown()
    leave(1)


def exit_when_orphaned(grace_seconds: float) -> None:
    """Start the watch on a daemon thread if ``svc up`` started this process; otherwise do nothing."""
    value = os.environ.get(SUPERVISOR_PID, "")
    if not value.isdigit():
        return
    # Watched by the supervisor's pid: if it died before this line, the watch finds it gone at once.
    thread = threading.Thread(
        target=watch, args=(int(value), grace_seconds), name="svc-orphan-watch", daemon=True
    )
    thread.start()
