"""The sandbox worker pool as companies share it: fair share, budgets, crashes, a bare environment.

Real worker subprocesses (no broker): these are the guarantees the ingress relies on when one company's
scripts or JSONPath expressions are hostile.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sinks.scripting.engine import ScriptLimits
from sinks.scripting.sandbox import (
    ScriptError,
    ScriptRuntimeError,
    ScriptTimeoutError,
    run_script,
    run_validation,
)
from sinks.scripting.workers import SandboxBusy, ScriptWorkerPool, TaskBudget, TaskBudgetExceeded, _Worker

pytestmark = pytest.mark.integration
CATASTROPHIC = "return /^(a+)+$/.test('a'.repeat(40) + 'b')"


@pytest.fixture
def pool() -> Iterator[ScriptWorkerPool]:
    own = ScriptWorkerPool(max_workers=3, per_tenant=1, queue_seconds=0.2)
    yield own
    own.close()


def jsonpath(pool: ScriptWorkerPool, expression: str, body: str, tenant: str = "acme") -> dict[str, object]:
    payload = {"mappings": {"v": expression}, "body": body, "queryParams": {}, "contentType": None}
    result: dict[str, object] = pool.run_task(
        "jsonpath", payload, tenant=tenant, budget=TaskBudget(250, 5000)
    )
    return result


def test_a_catastrophic_regex_is_stopped_by_the_cpu_budget(pool: ScriptWorkerPool) -> None:
    """QuickJS never checks its time limit inside a regular expression: the worker's hard CPU budget ends it
    (about a second of CPU instead of the minutes this match would take)."""
    with pytest.raises(ScriptTimeoutError, match="did not finish in time"):
        run_validation(CATASTROPHIC, {}, "", {}, pool=pool, tenant="hostile")
    assert run_validation("return true", {}, "", {}, pool=pool, tenant="hostile").valid


def test_a_company_holds_at_most_its_share_and_others_pass(pool: ScriptWorkerPool) -> None:
    outcomes: list[str] = []
    started = threading.Event()
    # Warm workers for everyone first: what is measured is the wait for a worker, not a cold start.
    with ThreadPoolExecutor(3) as warm:
        tenants = ["w1", "w2", "w3"]
        assert all(
            warm.map(lambda t: run_validation("return true", {}, "", {}, pool=pool, tenant=t).valid, tenants)
        )

    def hostile() -> None:
        started.set()
        try:
            run_validation(CATASTROPHIC, {}, "", {}, pool=pool, tenant="hostile")
            outcomes.append("ran")
        except SandboxBusy as busy:
            outcomes.append(f"busy {busy.retry_after}")
        except ScriptError:
            outcomes.append("stopped")

    with ThreadPoolExecutor(6) as threads:
        futures = [threads.submit(hostile) for _ in range(6)]
        started.wait()
        time.sleep(0.05)
        assert pool.held_by("hostile") == 1
        begin = time.monotonic()
        assert run_validation("return true", {}, "", {}, pool=pool, tenant="victim").valid
        victim_seconds = time.monotonic() - begin
        for future in futures:
            future.result()
    assert sorted(outcomes) == ["busy 1"] * 5 + ["stopped"]
    assert victim_seconds < 1.0  # generous: the victim never waits for the hostile company's worker


def test_callers_without_a_tenant_are_bounded_by_the_pool_only(pool: ScriptWorkerPool) -> None:
    with ThreadPoolExecutor(3) as threads:
        results = list(threads.map(lambda _: run_script("return 1", {}, pool=pool), range(3)))
    assert results == [("number", 1)] * 3


def test_a_crash_in_the_engine_is_a_clean_error_and_the_worker_is_replaced(pool: ScriptWorkerPool) -> None:
    # A deep JSON.stringify recurses in C below QuickJS's stack check: the worker dies or runs out of budget.
    deep = "let o = {}; let r = o; for (let i = 0; i < 60000; i++) { r.a = {}; r = r.a }; "
    deep += "return JSON.stringify(o)"
    with pytest.raises((ScriptRuntimeError, ScriptTimeoutError)):
        run_script(deep, {}, pool=pool, tenant="acme")
    assert run_script("return 2", {}, pool=pool, tenant="acme") == ("number", 2)


def test_jsonpath_tasks_stop_at_their_cpu_budget(pool: ScriptWorkerPool) -> None:
    node: dict[str, object] = {"leaf": 1}
    for level in range(250):
        node = {"level": level, "items": [node, {"n": level}, {"m": level}]}
    body = json.dumps(node)
    with pytest.raises(TaskBudgetExceeded, match="budget of 250 ms"):
        jsonpath(pool, "$..*..*", body)
    assert jsonpath(pool, "$.items[?(@.n > 0)].n", body) == {"variables": {"v": "249"}}


def test_jsonpath_regex_filters_are_stopped_too(pool: ScriptWorkerPool) -> None:
    body = json.dumps({"items": [{"s": "a" * 40 + "b"}]})
    with pytest.raises(TaskBudgetExceeded):
        jsonpath(pool, "$.items[?(@.s =~ '^(a+)+$')].s", body)


def test_the_worker_sees_no_service_environment_and_its_own_temp_dir(
    pool: ScriptWorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SVC_SECRET_KEY", "do-not-leak-this-secret")
    payload: dict[str, object] = {"mappings": {}, "body": "", "queryParams": {}, "contentType": None}
    pool.run_task("jsonpath", payload, tenant="acme")  # a worker started after the variable was set
    worker = pool._idle[0]
    environ = Path(f"/proc/{worker.proc.pid}/environ").read_bytes().split(b"\0")
    assert not any(entry.startswith(b"SVC_SECRET_KEY") for entry in environ)
    assert f"TMPDIR={worker.tmp}".encode() in environ
    assert os.readlink(f"/proc/{worker.proc.pid}/cwd") == worker.tmp


def test_unknown_tasks_are_refused(pool: ScriptWorkerPool) -> None:
    with pytest.raises(ValueError, match="unknown sandbox task"):
        pool.run_task("os.system", {}, tenant="acme")


def test_a_company_that_keeps_running_to_its_limits_is_held_to_its_cpu_share() -> None:
    """Holding one worker, a hostile company could still keep it busy for good with scripts that run to
    their budget. Its CPU allowance (here a tenth of a core, 300 ms at once) runs out after a few such
    scripts: its next calls are refused with the Retry-After the refill needs, the victim's run."""
    own = ScriptWorkerPool(
        max_workers=3,
        per_tenant=2,
        queue_seconds=0.2,
        cpu_share=0.1 / (os.cpu_count() or 1),
        cpu_burst_ms=300,
    )
    try:
        spent = 0
        with pytest.raises(SandboxBusy, match="share of the sandbox's CPU") as busy:  # noqa: PT012
            # `spent` is read after the loop. Each run costs up to its 100 ms limit (QuickJS counts
            # wall time, so on a busy machine less CPU): the burst lasts a few runs.
            for spent in range(1, 40):  # noqa: B007
                with pytest.raises(ScriptTimeoutError):
                    run_script("while(true){}", {}, pool=own, tenant="hostile")
        assert spent >= 2
        assert busy.value.retry_after >= 1
        assert run_validation("return true", {}, "", {}, pool=own, tenant="victim").valid
        assert own.allowance.wait_seconds("victim", time.monotonic()) == 0.0
    finally:
        own.close()


def test_a_worker_starved_of_cpu_is_busy_not_over_budget() -> None:
    """A worker that misses its deadline without having used its CPU budget was starved (a saturated
    machine, the idle scheduling class), not stopped for running too long: the caller is told to retry, and
    the company pays only the CPU the worker used. A stopped worker stands in for a starved one."""
    own = ScriptWorkerPool(max_workers=1, per_tenant=1, cpu_share=0.5, cpu_burst_ms=1000)
    try:
        assert run_validation("return true", {}, "", {}, pool=own, tenant="acme").valid
        (worker,) = own._idle
        os.kill(worker.proc.pid, signal.SIGSTOP)
        limits = ScriptLimits(time_ms=20, wall_ms=200)
        with pytest.raises(SandboxBusy, match="short of CPU") as busy:
            run_validation("return true", {}, "", {}, limits=limits, pool=own, tenant="acme")
        assert busy.value.starved and not busy.value.over_cpu
        assert not worker.alive()
        assert own.allowance.wait_seconds("acme", time.monotonic()) == 0.0  # charged its start, not the wait
        assert run_validation("return true", {}, "", {}, pool=own, tenant="acme").valid
    finally:
        own.close()


@pytest.mark.parametrize("niceness", [0, 10, 19])
def test_workers_run_at_the_sandbox_priority(niceness: int) -> None:
    """Workers take SVC_SANDBOX_NICENESS (19 by default) relative to the service once started; at 19 they also
    join the idle scheduling class, so tenant code runs only on CPU the service leaves idle. The start-up runs
    at the service's priority, so a saturated machine cannot starve it into a failed start (a worker in the
    idle class gets next to no CPU while every core is busy)."""
    worker = _Worker(niceness)
    try:
        assert os.getpriority(os.PRIO_PROCESS, worker.proc.pid) == min(19, os.nice(0) + niceness)
        idle = os.sched_getscheduler(worker.proc.pid) == os.SCHED_IDLE
        assert idle == (niceness == 19)
    finally:
        worker.kill()
    if niceness < 19:  # at 19, a script's answer waits for an idle core: not something a busy suite has
        own = ScriptWorkerPool(max_workers=1, niceness=niceness)
        try:
            assert run_validation("return true", {}, "", {}, pool=own, tenant="acme").valid
        finally:
            own.close()


def test_the_default_sandbox_priority_is_the_idle_class() -> None:
    from schemas.settings import Settings

    assert Settings().sandbox_niceness == 19


def test_a_task_modules_warm_up_is_outside_the_first_tasks_deadline() -> None:
    """sqlglot's import and warm-up take a new worker hundreds of milliseconds (seconds, niced on a saturated
    machine); the first task's wall-clock deadline and CPU budget are its own alone: a deadline shorter than
    the warm-up (about 250 ms here) is met."""
    own = ScriptWorkerPool(max_workers=1, per_tenant=1, niceness=0)
    try:
        for _ in range(2):
            budget = TaskBudget(cpu_ms=50, wall_ms=150)
            result = own.run_task("sql_parse", {"sql": "SELECT a FROM t"}, tenant="acme", budget=budget)
            assert result["tables"] == ["t"]
    finally:
        own.close()


def test_a_worker_refuses_to_warm_up_what_is_not_a_task_module() -> None:
    worker = _Worker()
    try:
        with pytest.raises(ScriptRuntimeError):
            worker.warm("os")
        assert not worker.alive() or worker.warmed == set()
    finally:
        worker.kill()
