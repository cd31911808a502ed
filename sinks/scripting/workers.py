"""Worker subprocesses that run sandboxed scripts, so a script stuck inside one engine call (beyond the
reach of QuickJS's own time check) costs a killed process, never a stuck server thread."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from sinks.scripting.sandbox import (
    _MAX_DIGEST_ROUNDS,
    ScriptError,
    ScriptLimits,
    ScriptRuntimeError,
    ScriptTimeoutError,
    _builtins_source,
    execute_in_process,
)

_FRAME = struct.Struct(">I")
_WORKER_CPU_SECONDS = 1800  # kills a worker orphaned while stuck, which no parent is left to kill
_SOURCE_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    f"import sys; sys.path.insert(0, {_SOURCE_ROOT!r}); "
    "from sinks.scripting.workers import _worker_main; _worker_main()"
)


class _WorkerGone(Exception):
    """The worker exited (or was found dead) before answering."""


class _Worker:
    def __init__(self) -> None:
        # An empty environment: the service's secrets live in its environment, scripts need none of it.
        self.proc = subprocess.Popen(  # noqa: S603 - fixed argv, our own interpreter
            [sys.executable, "-I", "-c", _BOOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
        )
        self.uses = 0
        self._poll = select.poll()
        assert self.proc.stdout is not None  # noqa: S101 - Popen with PIPE
        self._out = self.proc.stdout.fileno()
        self._poll.register(self._out, select.POLLIN)
        try:
            self._read_frame(time.monotonic() + 30.0)
        except (TimeoutError, _WorkerGone, ValueError):
            self.kill()
            raise ScriptRuntimeError("The script sandbox could not be started.") from None

    def call(self, frame: bytes, deadline: float) -> dict[str, Any]:
        """Send one request and wait for the answer. _WorkerGone(True) means the request never got there."""
        stdin = self.proc.stdin
        assert stdin is not None  # noqa: S101 - Popen with PIPE
        try:
            stdin.write(frame)
            stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise _WorkerGone(True) from exc
        self.uses += 1
        return self._read_frame(deadline)

    def _read_frame(self, deadline: float) -> dict[str, Any]:
        (size,) = _FRAME.unpack(self._read_exact(_FRAME.size, deadline))
        result: dict[str, Any] = json.loads(self._read_exact(size, deadline))
        return result

    def _read_exact(self, size: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        while size > 0:
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            if remaining_ms <= 0 or not self._poll.poll(remaining_ms):
                raise TimeoutError
            chunk = os.read(self._out, min(size, 1 << 20))
            if not chunk:
                raise _WorkerGone(False)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()


class ScriptWorkerPool:
    """Worker subprocesses that run scripts, one script per worker at a time. Safe to share between threads.

    Callers beyond `max_workers` wait for a free worker. A worker is replaced after `max_uses` scripts and
    whenever it misses a deadline.
    """

    def __init__(self, max_workers: int | None = None, *, max_uses: int = 500) -> None:
        self.max_workers = max_workers or max(2, os.cpu_count() or 1)
        self._max_uses = max_uses
        self._slots = threading.BoundedSemaphore(self.max_workers)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self._owner_pid = os.getpid()

    def run(self, request: Mapping[str, Any], limits: ScriptLimits) -> dict[str, Any]:
        body = json.dumps({"request": request, "limits": asdict(limits)}).encode()
        frame = _FRAME.pack(len(body)) + body
        runs = _MAX_DIGEST_ROUNDS + 1
        budget_s = (limits.wall_ms + 4 * runs * limits.time_ms) / 1000 + len(body) / 5e6
        with self._slots:
            response = self._call(frame, budget_s)
        if response.get("ok"):
            outcome: dict[str, Any] = response["outcome"]
            return outcome
        raise ScriptError.of(str(response.get("kind")), str(response.get("message")), response.get("line"))

    def _call(self, frame: bytes, budget_s: float) -> dict[str, Any]:
        for attempt in range(2):
            worker = self._checkout()
            try:
                response = worker.call(frame, time.monotonic() + budget_s)
            except _WorkerGone as gone:
                worker.kill()
                if attempt == 0 and gone.args[0]:
                    continue  # it died while idle; the request never reached it
                raise ScriptRuntimeError("The script sandbox stopped unexpectedly.") from None
            except TimeoutError:
                worker.kill()
                raise ScriptTimeoutError("Script did not finish in time and was stopped.") from None
            except BaseException:
                worker.kill()
                raise
            self._checkin(worker)
            return response
        raise ScriptRuntimeError("The script sandbox could not be started.")  # pragma: no cover

    def _checkout(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise RuntimeError("script worker pool is closed")
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
        return _Worker()

    def _checkin(self, worker: _Worker) -> None:
        with self._lock:
            if not self._closed and worker.uses < self._max_uses and worker.alive():
                self._idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        if os.getpid() != self._owner_pid:
            return  # a forked child's copy: the workers belong to the parent
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()


_default_lock = threading.Lock()
_default: tuple[int, ScriptWorkerPool] | None = None


def default_pool() -> ScriptWorkerPool:
    """The process-wide pool, created on first use (and again in a forked child, which must not share it)."""
    global _default
    with _default_lock:
        if _default is None or _default[0] != os.getpid():
            pool = ScriptWorkerPool()
            atexit.register(pool.close)
            _default = (os.getpid(), pool)
        return _default[1]


def _write_frame(out: IO[bytes], message: Mapping[str, Any]) -> None:
    body = json.dumps(message).encode()
    out.write(_FRAME.pack(len(body)) + body)
    out.flush()


def _worker_main() -> None:
    """Serve requests from stdin until it closes (the pool closed it, or the service died)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (_WORKER_CPU_SECONDS, _WORKER_CPU_SECONDS))
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the protocol stream
    _builtins_source()
    _write_frame(out, {"ready": True})
    while header := inp.read(_FRAME.size):
        message = json.loads(inp.read(_FRAME.unpack(header)[0]))
        try:
            response = {
                "ok": True,
                "outcome": execute_in_process(message["request"], ScriptLimits(**message["limits"])),
            }
        except ScriptError as exc:
            response = {"ok": False, "kind": exc.kind, "message": exc.detail, "line": exc.line}
        except Exception:
            response = {"ok": False, "kind": "runtime", "message": "The script sandbox failed.", "line": None}
        _write_frame(out, response)
