"""Run user scripts (webhook validation and transforms) in QuickJS, isolated from the service.

A script is the body of a JavaScript function; the language and the `svc` helpers are described in
docs/scripting.md. Each run gets a fresh QuickJS context with a CPU-time limit, a memory limit and a stack
limit, and nothing from Python but JSON data and the pure-JavaScript helpers in builtins.js.

The contexts live in worker subprocesses (`ScriptWorkerPool`) rather than in the caller's thread. QuickJS
checks its time limit only between bytecodes, so a catastrophic regular expression or a builtin looping over
a huge array-like object never reaches a check and its thread could never be stopped; a worker that misses
its wall-clock deadline is killed instead. In a single-threaded worker the engine's CPU clock (the process
clock) also measures just the script, where in a thread pool it would count every thread's CPU time.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from core.webhooks.transform import ScriptRunner, TransformError
from sinks.scripting.engine import (
    _MAX_DIGEST_ROUNDS,
    DEFAULT_LIMITS,
    DEFAULT_REJECTION_MESSAGE,
    DEFER_DIGEST_MIN_CHARS,
    MAX_MESSAGE_CHARS,
    TRANSFORM_ARGS,
    VALIDATION_ARGS,
    ScriptCompileError,
    ScriptError,
    ScriptLimits,
    ScriptMemoryError,
    ScriptResultError,
    ScriptRuntimeError,
    ScriptTimeoutError,
    ValidationOutcome,
    _builtins_source,
    execute_in_process,
)
from sinks.scripting.workers import ScriptWorkerPool, default_pool

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_REJECTION_MESSAGE",
    "DEFER_DIGEST_MIN_CHARS",
    "MAX_MESSAGE_CHARS",
    "TRANSFORM_ARGS",
    "VALIDATION_ARGS",
    "_MAX_DIGEST_ROUNDS",
    "ScriptCompileError",
    "ScriptError",
    "ScriptLimits",
    "ScriptMemoryError",
    "ScriptResultError",
    "ScriptRuntimeError",
    "ScriptTimeoutError",
    "ValidationOutcome",
    "_builtins_source",
    "compile_check",
    "execute_in_process",
    "run_script",
    "run_transform_script",
    "run_validation",
    "script_transform",
]

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def compile_check(
    script: str,
    arg_names: Sequence[str],
    *,
    limits: ScriptLimits = DEFAULT_LIMITS,
    pool: ScriptWorkerPool | None = None,
    tenant: str | None = None,
) -> None:
    """Raise ScriptCompileError when `script` is not a valid function body for these argument names."""
    _check_arg_names(arg_names)
    _pool(pool).run({"script": script, "argNames": list(arg_names), "check": True}, limits, tenant=tenant)


def run_script(
    script: str,
    args: Mapping[str, Any],
    *,
    limits: ScriptLimits = DEFAULT_LIMITS,
    now: float | None = None,
    pool: ScriptWorkerPool | None = None,
    tenant: str | None = None,
) -> tuple[str, Any]:
    """Run `script` with `args` (JSON data) as named arguments; return (JavaScript type, JSON value).
    `tenant` (the company) counts the run against that company's share of the sandbox workers."""
    _check_arg_names(list(args))
    request = {"script": script, "argNames": list(args), "args": dict(args), "now": _now(now)}
    outcome = _pool(pool).run(request, limits, tenant=tenant)
    return str(outcome["type"]), outcome.get("value")


def run_validation(
    script: str,
    headers: Mapping[str, str],
    body: str,
    query_params: Mapping[str, str],
    *,
    limits: ScriptLimits = DEFAULT_LIMITS,
    now: float | None = None,
    pool: ScriptWorkerPool | None = None,
    tenant: str | None = None,
) -> ValidationOutcome:
    """Run a validation script; it returns a boolean or `{valid: boolean, message?: string}`."""
    args = {"headers": dict(headers), "body": body, "queryParams": dict(query_params)}
    kind, value = run_script(script, args, limits=limits, now=now, pool=pool, tenant=tenant)
    if isinstance(value, bool) and kind == "boolean":
        return ValidationOutcome(value, "" if value else DEFAULT_REJECTION_MESSAGE)
    if kind == "object" and isinstance(value, dict) and isinstance(value.get("valid"), bool):
        message = value.get("message")
        if message is None:
            message = "" if value["valid"] else DEFAULT_REJECTION_MESSAGE
        if not isinstance(message, str):
            raise ScriptResultError("Validation script returned a message that is not a string.")
        return ValidationOutcome(value["valid"], message[:MAX_MESSAGE_CHARS])
    raise ScriptResultError(
        "Validation script must return a boolean or {valid: boolean, message?: string}, "
        f"got {_describe(kind)}."
    )


def run_transform_script(
    script: str,
    payload: str,
    headers: Mapping[str, str],
    query_params: Mapping[str, str],
    *,
    limits: ScriptLimits = DEFAULT_LIMITS,
    now: float | None = None,
    pool: ScriptWorkerPool | None = None,
    tenant: str | None = None,
) -> dict[str, Any]:
    """Run a transform script; it must return a plain object of variables."""
    args = {"payload": payload, "headers": dict(headers), "queryParams": dict(query_params)}
    kind, value = run_script(script, args, limits=limits, now=now, pool=pool, tenant=tenant)
    if kind == "object" and isinstance(value, dict):
        return value
    raise ScriptResultError(f"Transform script must return an object of variables, got {_describe(kind)}.")


def script_transform(
    *,
    limits: ScriptLimits = DEFAULT_LIMITS,
    now: float | None = None,
    pool: ScriptWorkerPool | None = None,
    tenant: str | None = None,
) -> ScriptRunner:
    """The SVC_SCRIPT runner that core.webhooks.transform.apply_transform takes: a failing script is a
    TransformError there."""

    def run(
        script: str, payload: str, headers: Mapping[str, str], query: Mapping[str, str]
    ) -> dict[str, Any]:
        try:
            return run_transform_script(
                script, payload, headers, query, limits=limits, now=now, pool=pool, tenant=tenant
            )
        except ScriptError as exc:
            raise TransformError(f"Transform script failed: {exc}") from exc

    return run


def _describe(kind: str) -> str:
    return {"object": "an object with other fields", "array": "an array", "undefined": "nothing"}.get(
        kind, f"a {kind}" if kind != "promise" else "a Promise (scripts must be synchronous)"
    )


def _now(now: float | None) -> float:
    return time.time() if now is None else float(now)


def _check_arg_names(arg_names: Sequence[str]) -> None:
    if len(set(arg_names)) != len(arg_names) or not all(_IDENTIFIER.match(n) for n in arg_names):
        raise ValueError("argument names must be distinct JavaScript identifiers")


def _pool(pool: ScriptWorkerPool | None) -> ScriptWorkerPool:
    return pool if pool is not None else default_pool()


# ---- the engine, as run inside a worker process -------------------------------------------------------
