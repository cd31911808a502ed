"""Child processes that cannot outlive their parent, and an orderly way to stop them."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    # If `svc up` itself is killed (even with SIGKILL) the kernel sends SIGTERM to each child: no orphans.
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass
    # Own process group, so a terminal's Ctrl-C reaches only the supervisor, which stops children in order.
    os.setpgid(0, 0)


def _child_setup(niceness: int) -> Callable[[], None]:
    def setup() -> None:
        _die_with_parent()
        if niceness:
            # Before exec, so every thread of the child inherits it (Linux keeps niceness per thread).
            os.nice(niceness)

    return setup


def spawn(
    command: Sequence[str],
    *,
    log_path: Path | None = None,
    env: Mapping[str, str] | None = None,
    niceness: int = 0,
    pass_fds: Sequence[int] = (),
) -> subprocess.Popen[bytes]:
    """Start ``command`` as a child that dies with this process; ``niceness`` > 0 lowers its CPU priority;
    ``pass_fds`` are inherited under the same numbers (the ingress's listening socket)."""
    output = open(log_path, "ab") if log_path is not None else None  # noqa: SIM115 - the child owns it
    try:
        return subprocess.Popen(  # noqa: S603 - commands are built by the supervisor, never from input
            list(command),
            # stdout belongs to the supervisor (it prints the URL); a child writes to its log or stderr.
            stdout=output if output is not None else sys.stderr.fileno(),
            stderr=subprocess.STDOUT if output is not None else None,
            env=dict(env) if env is not None else None,
            preexec_fn=_child_setup(niceness),
            close_fds=True,
            pass_fds=tuple(pass_fds),
        )
    finally:
        if output is not None:
            output.close()


def stop_together(
    processes: Mapping[str, subprocess.Popen[bytes]], timeout_seconds: float
) -> dict[str, int | None]:
    """SIGTERM to each, one shared wait for graceful exits, then SIGKILL to the rest; the exit statuses by
    name. Together, so several workers drain at once rather than one after the other."""
    for process in processes.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout_seconds
    statuses: dict[str, int | None] = {}
    for name, process in processes.items():
        try:
            statuses[name] = process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log.warning("child did not stop in time; killing it", extra={"child": name, "pid": process.pid})
            process.kill()
            statuses[name] = process.wait(timeout=5)
    return statuses


def listen(host: str, port: int) -> socket.socket:
    """The ingress port, bound once here and inherited by every ingress process (``svc ingress --fd``).

    One socket passed by descriptor rather than SO_REUSEPORT sockets bound by each process: the port stays
    bound while an ingress restarts, so connections made meanwhile wait in the backlog instead of being
    refused, and a connection is never stranded in the queue of a process that died (with SO_REUSEPORT each
    process has its own queue); no other program of the same user can join the port and take a share of its
    connections; a busy port is one clear error here, not children failing in a loop; and port 0 gives one
    free port that all processes share."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(2048)
    except OSError:
        listener.close()
        raise
    return listener
