"""Worker subprocesses that run tenant-controlled computation: sandboxed scripts, and the tasks in
``sinks/scripting/tasks.py`` (JSONPath evaluation, SQL analysis). A computation stuck inside one engine call
(beyond the reach of QuickJS's own time check, or inside a C regular expression) costs a killed process,
never a stuck server thread.

Budgets, enforced inside the worker on its own CPU clock (so a busy machine does not turn into false
timeouts): a soft one (SIGPROF, raised as an exception between bytecodes: the task answers "over budget")
and a hard one (SIGVTALRM left at its default action: the process ends, for work the soft one cannot
interrupt). The parent keeps a wall-clock deadline as the last backstop.

Fair share: the pool is shared by every company, and one company holds at most ``per_tenant`` workers at
once. A caller past its share, or finding every worker busy, waits up to ``queue_seconds`` and then gets
``SandboxBusy`` (the ingress answers 429 with Retry-After). No company can hold every worker.

CPU allowance: holding at most ``per_tenant`` workers still lets one company keep them busy all the time
with work that runs to its budget. Each company also has a CPU allowance (``core/cpu_allowance.py``): the
CPU its calls actually used (reported by the worker, or the hard budget when the worker had to be ended) is
taken from a bucket that refills at ``cpu_share`` of the machine's cores. A company in debt waits for the
refill within ``queue_seconds`` or gets ``SandboxBusy`` with the Retry-After the refill needs, so a company
whose scripts keep running to their limits is held to its share of the CPU while others' calls run."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.cpu_allowance import CpuAllowance, retry_after_seconds
from sinks.scripting.child import FRAME as _FRAME
from sinks.scripting.child import HARD_KILL as _HARD_KILL
from sinks.scripting.engine import (
    _MAX_DIGEST_ROUNDS,
    ScriptError,
    ScriptLimits,
    ScriptRuntimeError,
    ScriptTimeoutError,
)


@dataclass(frozen=True, slots=True)
class TaskBudget:
    """CPU time a task may use in its worker (soft: answered as over budget; hard: twice that plus 200 ms, the
    worker is ended) and the wall-clock backstop the caller waits at most."""

    cpu_ms: int = 250
    wall_ms: int = 2000


class SandboxBusy(Exception):
    """The company holds its share of sandbox workers (or every worker is busy) past the queue wait."""

    def __init__(
        self, message: str, retry_after: int = 1, *, over_cpu: bool = False, starved: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.over_cpu = over_cpu  # past the company's CPU allowance, rather than its share of workers
        self.starved = starved  # the machine gave the worker too little CPU to finish in time


class TaskBudgetExceeded(Exception):
    """A task used more CPU than its budget (or missed its wall-clock deadline) and was stopped."""


class TaskFailed(Exception):
    """A task raised an unexpected error or its worker stopped; the message names no input."""


_SOURCE_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    f"import sys; sys.path.insert(0, {_SOURCE_ROOT!r}); "
    "from sinks.scripting.child import worker_main; worker_main()"
)


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# A worker that missed its wall-clock deadline having used less than this share of its CPU budget was starved
# of CPU (a saturated machine, or the idle scheduling class), not over budget: the caller may retry.
_STARVED_SHARE = 0.1
_STARVED_EXTENSIONS = 1
# How long a worker may take to import and warm up a task's module, as long as a start may take.
_WARM_SECONDS = 30.0


class _WorkerGone(Exception):
    """The worker exited (or was found dead) before answering."""


class _Worker:
    def __init__(self, niceness: int = 0) -> None:
        # An empty environment (the service's secrets live in its environment, scripts need none of it) and a
        # private, empty working and temp directory, removed with the worker.
        self.tmp = tempfile.mkdtemp(prefix="svc-sandbox-")
        self.proc = subprocess.Popen(  # noqa: S603 - fixed argv, our own interpreter
            [sys.executable, "-I", "-c", _BOOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"TMPDIR": self.tmp, "SVC_SANDBOX_NICENESS": str(niceness)},
            cwd=self.tmp,
        )
        self.uses = 0
        self.warmed: set[str] = set()  # the task modules this worker has imported and warmed up
        self._poll = select.poll()
        assert self.proc.stdout is not None  # noqa: S101 - Popen with PIPE
        self._out = self.proc.stdout.fileno()
        self._poll.register(self._out, select.POLLIN)
        try:
            self.start_cpu_ms = float(self._read_frame(time.monotonic() + 30.0).get("cpuMs") or 0.0)
        except (TimeoutError, _WorkerGone, ValueError):
            self.kill()
            raise ScriptRuntimeError("The script sandbox could not be started.") from None

    def call(
        self, frame: bytes, deadline: float, extend: Callable[[], float | None] = lambda: None
    ) -> dict[str, Any]:
        """Send one request and wait for the answer. _WorkerGone(True) means the request never got there.
        At the deadline, before any of the answer arrived, `extend` may give a later one."""
        stdin = self.proc.stdin
        assert stdin is not None  # noqa: S101 - Popen with PIPE
        try:
            stdin.write(frame)
            stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise _WorkerGone(True) from exc
        self.uses += 1
        while not self._poll.poll(max(0, int((deadline - time.monotonic()) * 1000))):
            later = extend()
            if later is None:
                raise TimeoutError
            deadline = later
        return self._read_frame(max(deadline, time.monotonic() + 1.0))

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

    def warm(self, module: str) -> None:
        """Import and warm up a task's module (``child._warmed``) before a task of it runs: a one-time cost
        of the worker, outside any task's CPU budget and wall-clock deadline (sqlglot's import and warm-up
        take a niced worker seconds on a saturated machine). Raises ScriptRuntimeError when it cannot."""
        if module in self.warmed:
            return
        body = json.dumps({"warm": module}).encode()
        try:
            answer = self.call(_FRAME.pack(len(body)) + body, time.monotonic() + _WARM_SECONDS)
        except (TimeoutError, _WorkerGone, ValueError):
            answer = {}
        if not answer.get("ok"):
            self.kill()
            raise ScriptRuntimeError("The script sandbox could not be started.")
        self.uses -= 1  # not a task
        self.warmed.add(module)

    def cpu_ms(self) -> float | None:
        """CPU the worker has used so far (Linux's /proc; None where it cannot be read)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) * 1000 / _CLOCK_TICKS

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ended_over_budget(self) -> bool:
        """The worker ended itself on its hard CPU budget (rather than crashing)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1)
        return self.proc.returncode == -_HARD_KILL

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class ScriptWorkerPool:
    """Worker subprocesses, one request per worker at a time. Safe to share between threads.

    At most `max_workers` requests run at once and one tenant (company) runs at most `per_tenant` of them;
    a tenant's caller beyond either waits up to `queue_seconds`, then gets SandboxBusy (a caller without a
    tenant waits for a worker). A worker is replaced after
    `max_uses` requests and whenever it misses a deadline or ends.
    """

    def __init__(
        self,
        max_workers: int | None = None,
        *,
        max_uses: int = 500,
        per_tenant: int | None = None,
        queue_seconds: float = 0.25,
        niceness: int = 0,
        cpu_share: float = 0.0,
        cpu_burst_ms: int = 2000,
    ) -> None:
        self.max_workers = max_workers or max(2, os.cpu_count() or 1)
        # cpu_share of every core, in CPU milliseconds per second; 0 turns the allowance off.
        self.allowance = CpuAllowance(cpu_share * (os.cpu_count() or 1) * 1000, cpu_burst_ms)
        self.per_tenant = max(1, min(per_tenant or self.max_workers, self.max_workers))
        self.queue_seconds = queue_seconds
        self._niceness = niceness
        self._max_uses = max_uses
        self._busy = 0
        self._by_tenant: dict[str, int] = {}
        self._turns = threading.Condition()
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self._owner_pid = os.getpid()

    def held_by(self, tenant: str) -> int:
        with self._turns:
            return self._by_tenant.get(tenant, 0)

    @contextlib.contextmanager
    def _slot(self, tenant: str | None) -> Iterator[None]:
        key = tenant or ""
        deadline = time.monotonic() + self.queue_seconds
        with self._turns:
            while tenant is not None and (wait := self.allowance.wait_seconds(key, time.monotonic())) > 0:
                if time.monotonic() + wait > deadline:
                    raise SandboxBusy(
                        "This company's scripts and transforms have used their share of the sandbox's CPU; "
                        "retry shortly.",
                        retry_after_seconds(wait),
                        over_cpu=True,
                    )
                self._turns.wait(wait)
            while self._busy >= self.max_workers or (
                tenant is not None and self._by_tenant.get(key, 0) >= self.per_tenant
            ):
                if tenant is None:  # the service's own calls (compile checks) wait their turn
                    self._turns.wait()
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise SandboxBusy(
                        "Too many scripts or transforms of this company are running at once; retry shortly."
                        if tenant is not None and self._by_tenant.get(key, 0) >= self.per_tenant
                        else "The script sandbox is busy; retry shortly."
                    )
                self._turns.wait(remaining)
            self._busy += 1
            self._by_tenant[key] = self._by_tenant.get(key, 0) + 1
        try:
            yield
        finally:
            with self._turns:
                self._busy -= 1
                left = self._by_tenant[key] - 1
                if left:
                    self._by_tenant[key] = left
                else:
                    del self._by_tenant[key]
                self._turns.notify_all()

    def run(
        self, request: Mapping[str, Any], limits: ScriptLimits, *, tenant: str | None = None
    ) -> dict[str, Any]:
        """Run one script request (see sandbox.py) for `tenant`."""
        body = json.dumps({"request": request, "limits": asdict(limits)}).encode()
        frame = _FRAME.pack(len(body)) + body
        runs = _MAX_DIGEST_ROUNDS + 1
        budget_s = (limits.wall_ms + 4 * runs * limits.time_ms) / 1000 + len(body) / 5e6
        hard_ms = runs * limits.time_ms * 1.5 + 300  # the worker's own hard stop (child.py)
        with self._slot(tenant):
            try:
                response = self._call(frame, budget_s, tenant, hard_ms)
            except _OverBudget:
                raise ScriptTimeoutError("Script did not finish in time and was stopped.") from None
            except _Crashed:
                raise ScriptRuntimeError(
                    "The script stopped the sandbox (for example by nesting data too deeply)."
                ) from None
        if response.get("ok"):
            outcome: dict[str, Any] = response["outcome"]
            return outcome
        raise ScriptError.of(str(response.get("kind")), str(response.get("message")), response.get("line"))

    def run_task(
        self, kind: str, payload: Mapping[str, Any], *, tenant: str | None, budget: TaskBudget = TaskBudget()
    ) -> Any:
        """Run the registered task `kind` on JSON `payload` in a worker; return its JSON result."""
        from sinks.scripting.tasks import TASKS

        if kind not in TASKS:
            raise ValueError(f"unknown sandbox task {kind!r}")
        body = json.dumps({"task": kind, "payload": payload, "cpuMs": budget.cpu_ms}).encode()
        frame = _FRAME.pack(len(body)) + body
        with self._slot(tenant):
            try:
                response = self._call(
                    frame,
                    budget.wall_ms / 1000 + len(body) / 5e6,
                    tenant,
                    2 * budget.cpu_ms + 200,
                    module=TASKS[kind].partition(":")[0],
                )
            except (_OverBudget, ScriptTimeoutError):
                raise TaskBudgetExceeded(f"stopped after its budget of {budget.cpu_ms} ms") from None
            except (_Crashed, ScriptRuntimeError):
                raise TaskFailed("the sandbox worker stopped") from None
        if response.get("ok"):
            return response["result"]
        if response.get("kind") == "budget":
            raise TaskBudgetExceeded(f"stopped after its budget of {budget.cpu_ms} ms")
        raise TaskFailed(str(response.get("message") or "the task failed"))

    def _call(
        self, frame: bytes, budget_s: float, tenant: str | None, hard_ms: float, module: str | None = None
    ) -> dict[str, Any]:
        """One request on one worker (a task's on one that has warmed up its ``module`` first); the CPU it
        cost goes to `tenant`'s allowance: what the worker reports, or, when the call ended the worker, its
        hard budget (the time waited, if it crashed or missed the deadline) plus what starting a worker
        costs."""
        started = time.monotonic()
        cost_ms = 0.0
        try:
            for attempt in range(2):
                worker = self._checkout()
                if module is not None:
                    try:
                        worker.warm(module)
                    except ScriptRuntimeError:
                        if attempt == 0:
                            continue  # it may have died while idle: once more, on a new worker
                        raise
                    started = time.monotonic()
                cpu_before = worker.cpu_ms()
                try:
                    response = worker.call(
                        frame, time.monotonic() + budget_s, _Starved(worker, cpu_before, hard_ms, budget_s)
                    )
                except _WorkerGone as gone:
                    over_budget = not gone.args[0] and worker.ended_over_budget()
                    worker.kill()
                    if attempt == 0 and gone.args[0]:
                        continue  # it died while idle; the request never reached it
                    cost_ms = worker.start_cpu_ms + (
                        hard_ms if over_budget else (time.monotonic() - started) * 1000
                    )
                    raise _OverBudget() if over_budget else _Crashed() from None
                except TimeoutError:
                    cpu_after = worker.cpu_ms()
                    worker.kill()
                    if cpu_before is None or cpu_after is None:
                        cost_ms = worker.start_cpu_ms + (time.monotonic() - started) * 1000
                        raise ScriptTimeoutError("Script did not finish in time and was stopped.") from None
                    cost_ms = worker.start_cpu_ms + cpu_after - cpu_before
                    if cpu_after - cpu_before < _STARVED_SHARE * hard_ms:
                        raise SandboxBusy(
                            "The script sandbox is short of CPU; retry shortly.", starved=True
                        ) from None
                    raise ScriptTimeoutError("Script did not finish in time and was stopped.") from None
                except BaseException:
                    worker.kill()
                    raise
                self._checkin(worker)
                cost_ms = float(response.get("cpuMs") or 0.0)
                return response
            raise ScriptRuntimeError("The script sandbox could not be started.")  # pragma: no cover
        finally:
            if tenant is not None and cost_ms > 0:
                with self._turns:
                    self.allowance.charge(tenant, cost_ms, time.monotonic())

    def _checkout(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise RuntimeError("script worker pool is closed")
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
        return _Worker(self._niceness)

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


class _Starved:
    """At a missed deadline: a worker the machine has starved of CPU (it used less than a tenth of its
    hard budget: the idle scheduling class on a saturated machine, not merely a busy one) gets the same wait
    again, once. A passing overload does not turn into an answer; a
    lasting one is answered busy."""

    def __init__(self, worker: _Worker, cpu_before: float | None, hard_ms: float, budget_s: float) -> None:
        self.worker, self.cpu_before, self.hard_ms, self.budget_s = worker, cpu_before, hard_ms, budget_s
        self.extensions = 0

    def __call__(self) -> float | None:
        used = self.worker.cpu_ms()
        if self.cpu_before is None or used is None or self.extensions >= _STARVED_EXTENSIONS:
            return None
        if used - self.cpu_before >= _STARVED_SHARE * self.hard_ms:
            return None
        self.extensions += 1
        return time.monotonic() + self.budget_s


class _OverBudget(Exception):
    """The worker ended itself on its hard CPU budget."""


class _Crashed(Exception):
    """The worker ended in the middle of a request for another reason (a crash in the engine)."""


_default_lock = threading.Lock()
_default: tuple[int, ScriptWorkerPool] | None = None
_default_options: dict[str, Any] = {}


def configure_default_pool(
    *,
    max_workers: int,
    per_tenant: int,
    queue_seconds: float,
    niceness: int,
    cpu_share: float = 0.0,
    cpu_burst_ms: int = 2000,
) -> None:
    """Size the process-wide pool from settings. A call with other options than the pool in use gives later
    callers a new pool; the old one finishes what it runs and its idle workers end with the process."""
    global _default
    options = {
        "max_workers": max_workers,
        "per_tenant": per_tenant,
        "queue_seconds": queue_seconds,
        "niceness": niceness,
        "cpu_share": cpu_share,
        "cpu_burst_ms": cpu_burst_ms,
    }
    with _default_lock:
        if options != _default_options:
            _default_options.clear()
            _default_options.update(options)
            _default = None


def default_pool() -> ScriptWorkerPool:
    """The process-wide pool, created on first use (and again in a forked child, which must not share it)."""
    global _default
    with _default_lock:
        if _default is None or _default[0] != os.getpid():
            pool = ScriptWorkerPool(**_default_options)
            atexit.register(pool.close)
            _default = (os.getpid(), pool)
        return _default[1]
