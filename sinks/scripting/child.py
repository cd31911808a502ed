"""The sandbox worker process itself: reads framed requests on stdin, runs each under its CPU budget, writes
framed answers on stdout. Started by ``workers.ScriptWorkerPool`` with an empty environment and a private
working directory; see workers.py for the budgets."""

from __future__ import annotations

import importlib
import json
import os
import signal
import struct
import sys
import time
from collections.abc import Mapping
from typing import IO, Any

from sinks.scripting.engine import (
    _MAX_DIGEST_ROUNDS,
    ScriptError,
    ScriptLimits,
    _builtins_source,
    execute_in_process,
)

FRAME = struct.Struct(">I")
HARD_KILL = signal.SIGVTALRM
WORKER_CPU_SECONDS = 1800  # kills a worker orphaned while stuck, which no parent is left to kill
# The data of one request (a 10 MB body and what is parsed from it) fits many times over; a runaway match
# list or string ends in MemoryError rather than in the machine's memory.
WORKER_ADDRESS_SPACE_BYTES = 4 << 30


def _write_frame(out: IO[bytes], message: Mapping[str, Any]) -> None:
    body = json.dumps(message).encode()
    out.write(FRAME.pack(len(body)) + body)
    out.flush()


class _SoftBudget(BaseException):
    """Raised by the CPU timer wherever the task is; not an Exception, so that a library wrapping whatever it
    catches (sqlglot's tokenizer makes any Exception a TokenError) cannot turn it into an answer."""


def _over_soft_budget(signum: int, frame: Any) -> None:
    raise _SoftBudget


def _run_task(message: Mapping[str, Any]) -> dict[str, Any]:
    from sinks.scripting.tasks import TASKS

    module_name, _, function_name = TASKS[message["task"]].partition(":")
    function = getattr(_warmed(module_name), function_name)
    cpu_s = max(1, int(message["cpuMs"])) / 1000
    signal.setitimer(signal.ITIMER_VIRTUAL, 2 * cpu_s + 0.2)
    signal.setitimer(signal.ITIMER_PROF, cpu_s)
    try:
        return {"ok": True, "result": function(message["payload"])}
    except _SoftBudget:
        return {"ok": False, "kind": "budget", "message": "over budget"}
    except RecursionError:
        return {"ok": False, "kind": "failed", "message": "the input is nested too deeply"}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)


def _run_script(message: Mapping[str, Any]) -> dict[str, Any]:
    limits = ScriptLimits(**message["limits"])
    request = message["request"]
    # The hard stop for what QuickJS's own time check cannot interrupt (a catastrophic regular expression):
    # every run of the script at its limit, plus reading the request.
    runs = _MAX_DIGEST_ROUNDS + 1
    args_chars = len(json.dumps(request.get("args", {})))
    signal.setitimer(signal.ITIMER_VIRTUAL, runs * limits.time_ms / 1000 * 1.5 + 0.3 + args_chars / 5e6)
    try:
        return {"ok": True, "outcome": execute_in_process(request, limits)}
    except ScriptError as exc:
        return {"ok": False, "kind": exc.kind, "message": exc.detail, "line": exc.line}
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)


_WARMED: set[str] = set()


def _warmed(module_name: str) -> Any:
    """A task's module, imported and warmed up (its ``warm_up``, where it has one) the first time a task of it
    runs in this worker, before the CPU budget is armed: one-time costs are the worker's, not the company's.
    The pool asks for it before the first task (``_Worker.warm``), so the task's deadline excludes it too.
    Workers that never run a task of a module never load it."""
    module = importlib.import_module(module_name)
    if module_name not in _WARMED:
        warm = getattr(module, "warm_up", None)
        if callable(warm):
            warm()
        _WARMED.add(module_name)
    return module


def _warm(module_name: str) -> dict[str, Any]:
    """The pool's request to warm up a task's module before its first task, outside any task's budget."""
    from sinks.scripting.tasks import TASKS

    if module_name not in {target.partition(":")[0] for target in TASKS.values()}:
        return {"ok": False, "kind": "runtime", "message": "not a task module", "line": None}
    _warmed(module_name)
    return {"ok": True}


def _lower_priority() -> None:
    """Take SVC_SANDBOX_NICENESS once the start-up (the interpreter and its imports) is done: a start at the
    service's priority takes tens of milliseconds and cannot be starved into a failed start on a saturated
    machine, while everything a tenant sends runs at the sandbox priority. At 19 the worker also joins Linux's
    idle class: it runs only on CPU nothing else wants, and any service thread that wakes preempts it at once
    (a niceness alone still costs the service its wake-up latency)."""
    niceness = int(os.environ.get("SVC_SANDBOX_NICENESS") or 0)
    os.nice(niceness)
    if niceness == 19 and hasattr(os, "SCHED_IDLE"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def worker_main() -> None:
    """Serve requests from stdin until it closes (the pool closed it, or the service died)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (WORKER_CPU_SECONDS, WORKER_CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_ADDRESS_SPACE_BYTES, WORKER_ADDRESS_SPACE_BYTES))
    signal.signal(signal.SIGPROF, _over_soft_budget)
    signal.signal(HARD_KILL, signal.SIG_DFL)
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the protocol stream
    _builtins_source()
    _lower_priority()
    # What starting this worker cost: a call that ends its worker pays for the next one's start too.
    _write_frame(out, {"ready": True, "cpuMs": round(time.process_time() * 1000, 3)})
    while header := inp.read(FRAME.size):
        message = json.loads(inp.read(FRAME.unpack(header)[0]))
        started = time.process_time()
        try:
            if "warm" in message:
                response = _warm(str(message["warm"]))
            elif "task" in message:
                response = _run_task(message)
            else:
                response = _run_script(message)
        except _SoftBudget:
            response = {"ok": False, "kind": "budget", "message": "over budget"}
        except Exception:
            response = {"ok": False, "kind": "runtime", "message": "The sandbox task failed.", "line": None}
        # What the call cost, for the company's CPU allowance (see core/cpu_allowance.py).
        response["cpuMs"] = round((time.process_time() - started) * 1000, 3)
        _write_frame(out, response)
