"""The QuickJS engine as a sandbox worker runs it: per-run limits, the error kinds, one script run with
its digest reruns (see builtins.js), and failure messages that never repeat the request's secrets.

Only the worker process (child.py) executes scripts; the service's processes import this module for the
limits and error types."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import quickjs

ScriptErrorKind = Literal["compile", "runtime", "timeout", "memory", "result"]

VALIDATION_ARGS: tuple[str, ...] = ("headers", "body", "queryParams")
TRANSFORM_ARGS: tuple[str, ...] = ("payload", "headers", "queryParams")
DEFAULT_REJECTION_MESSAGE = "Webhook validation failed."
MAX_MESSAGE_CHARS = 500

# Strings this long or longer are hashed natively in a second run (see builtins.js); shorter ones are
# hashed in JavaScript, which costs about 0.5 ms per KiB and saves a rerun.
DEFER_DIGEST_MIN_CHARS = 2048
_MAX_DIGEST_ROUNDS = 3
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_LINE_IN_STACK = re.compile(r"at svcScript \(<input>:(\d+)\)")
_WORD = re.compile(r"[^\s'\"`,;:()\[\]{}<>=]{4,}")
_QUOTED = re.compile(r"'([^']+)'")
_LINE_OF_SYNTAX_ERROR = re.compile(r"^\s*at <input>:(\d+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ScriptLimits:
    """Per-run limits. Memory taken by the request data itself comes on top of `memory_bytes`.

    `wall_ms` is only the backstop for a worker stuck where the CPU limit cannot reach; the deadline also
    allows for every run of the script and for the size of the request.
    """

    time_ms: int = 100
    memory_bytes: int = 32 * 1024 * 1024
    stack_bytes: int = 1024 * 1024
    wall_ms: int = 2000


DEFAULT_LIMITS = ScriptLimits()


@dataclass(frozen=True, slots=True)
class ValidationOutcome:
    valid: bool
    message: str


class ScriptError(Exception):
    """A script that cannot be compiled, fails, exceeds a limit or returns the wrong type.

    Messages name the problem and never quote the request (headers may carry secrets); a `runtime`
    message is the first line of what the script threw, which the script's author controls.
    """

    kind: ScriptErrorKind = "runtime"

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message if line is None else f"{message} (line {line})")
        self.detail = message
        self.line = line

    @staticmethod
    def of(kind: str, message: str, line: int | None = None) -> ScriptError:
        return _ERROR_TYPES.get(kind, ScriptRuntimeError)(message, line=line)


class ScriptCompileError(ScriptError):
    kind = "compile"


class ScriptRuntimeError(ScriptError):
    kind = "runtime"


class ScriptTimeoutError(ScriptError):
    kind = "timeout"


class ScriptMemoryError(ScriptError):
    kind = "memory"


class ScriptResultError(ScriptError):
    kind = "result"


_ERROR_CLASSES = (
    ScriptCompileError,
    ScriptRuntimeError,
    ScriptTimeoutError,
    ScriptMemoryError,
    ScriptResultError,
)
_ERROR_TYPES: dict[str, type[ScriptError]] = {cls.kind: cls for cls in _ERROR_CLASSES}


@cache
def _builtins_source() -> str:
    return (Path(__file__).with_name("builtins.js")).read_text(encoding="utf-8")


def execute_in_process(request: Mapping[str, Any], limits: ScriptLimits) -> dict[str, Any]:
    """Run one request in this process. Returns {"type", "value"?} or raises ScriptError.

    Not safe against scripts that hang inside a builtin: call it only in a process that can be killed.
    """
    memo: list[list[Any]] = []
    args = request.get("args", {})
    args_json = json.dumps(args)  # encoded once: every rerun sends the same, possibly 10 MB, arguments
    for round_no in range(_MAX_DIGEST_ROUNDS + 1):
        outcome = _run_once(request, args_json, limits, memo, defer=round_no < _MAX_DIGEST_ROUNDS)
        if outcome["status"] != "needs":
            return _interpret(outcome)
        memo.extend(
            [op, key, spec, _digest_hex(op, key, _message(spec, args))]
            for op, key, spec in outcome["requests"]
        )
    raise ScriptRuntimeError("Script asked for new digests on every run.")  # pragma: no cover - unreachable


def _interpret(outcome: dict[str, Any]) -> dict[str, Any]:
    status = outcome["status"]
    if status == "malformed":
        raise ScriptCompileError(
            "Script must be the body of a function: it closes the function it is wrapped in "
            "(check the braces)."
        )
    if status == "unserializable":
        raise ScriptResultError(f"Script result cannot be converted to JSON: {outcome.get('message', '')}")
    if status not in ("ok", "compiled"):
        raise ScriptRuntimeError("Unexpected answer from the script driver.")
    return outcome


def _run_once(
    request: Mapping[str, Any], args_json: str, limits: ScriptLimits, memo: list[list[Any]], *, defer: bool
) -> dict[str, Any]:
    script: str = request["script"]
    arg_names: list[str] = request["argNames"]
    source = f"(function svcScript({', '.join(arg_names)}) {{'use strict';{script}\n}})"
    env = {
        "argNames": arg_names,
        "nowMs": float(request.get("now", 0.0)) * 1000.0,
        "memo": memo,
        "defer": defer,
        "deferMinChars": request.get("deferMinChars", DEFER_DIGEST_MIN_CHARS),
    }
    env_json = f'{{"args": {args_json}, {json.dumps(env)[1:]}'
    data_chars = len(env_json)
    held: list[Any] = []  # every JS handle, dropped before the context so nothing outlives it
    context = quickjs.Context()
    try:
        context.set_memory_limit(limits.memory_bytes + 4 * data_chars + (1 << 20))
        context.set_max_stack_size(limits.stack_bytes)
        held.append(context.eval(_builtins_source()))
        held.append(context.parse_json(env_json))
        held.append(held[0](held[1]))
        context.set_time_limit(limits.time_ms / 1000.0)
        try:
            held.append(context.eval(source))
        except quickjs.JSException as exc:
            raise _classify(exc, limits, compiling=True) from None
        except (ValueError, UnicodeEncodeError):
            raise ScriptCompileError("Script contains a NUL character or invalid text.") from None
        try:
            answer = held[2](held[3], len(source.encode("utf-16-le")) // 2 - 2, bool(request.get("check")))
        except quickjs.JSException as exc:
            sensitive = _sensitive(request.get("args", {}))
            raise _classify(exc, limits, compiling=False, sensitive=sensitive) from None
    finally:
        held.clear()
        del context
    result: dict[str, Any] = json.loads(answer)
    return result


def _sensitive(args: Mapping[str, Any]) -> list[str]:
    """Header and query-parameter values: what a failure message must never repeat."""
    return [
        v for arg in args.values() if isinstance(arg, Mapping) for v in arg.values() if isinstance(v, str)
    ]


def _redact(message: str, sensitive: Sequence[str]) -> str:
    # Engine messages can quote input (JSON.parse names the unexpected token) and a script may put a header
    # into what it throws: whole values, and any word that is part of one or contains one, are blanked out.
    long_values = [value for value in sensitive if len(value) >= 4]
    for value in long_values:
        message = message.replace(value, "[redacted]")

    def blank(match: re.Match[str]) -> str:
        word = match.group(0)
        hit = any(word in value for value in sensitive) or any(value in word for value in long_values)
        return "[redacted]" if hit else word

    def blank_quoted(match: re.Match[str]) -> str:
        quoted = match.group(1)
        return "'[redacted]'" if any(quoted in value for value in sensitive) else match.group(0)

    return _WORD.sub(blank, _QUOTED.sub(blank_quoted, message))


def _classify(
    exc: Exception, limits: ScriptLimits, *, compiling: bool, sensitive: Sequence[str] = ()
) -> ScriptError:
    text = str(exc)
    first = text.split("\n", 1)[0].strip()
    if first == "InternalError: interrupted":
        return ScriptTimeoutError(f"Script exceeded its CPU time limit of {limits.time_ms} ms.")
    if isinstance(exc, quickjs.StackOverflow) or first == "InternalError: stack overflow":
        return ScriptMemoryError("Script exceeded its stack limit (too deep recursion).")
    if first == "InternalError: out of memory" or first.startswith("(Failed obtaining QuickJS error string"):
        return ScriptMemoryError(
            f"Script exceeded its memory limit of {limits.memory_bytes // (1 << 20)} MiB."
        )
    if first.startswith("Error: svc: the script threw"):
        first = "The script threw null or undefined (or ran out of memory)."
    pattern = _LINE_OF_SYNTAX_ERROR if compiling else _LINE_IN_STACK
    match = pattern.search(text)
    line = int(match.group(1)) if match else None
    if compiling:
        return ScriptCompileError(f"Script does not compile: {first[:300]}", line=line)
    return ScriptRuntimeError(f"Script failed: {_redact(first[:300], sensitive)}", line=line)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates become U+FFFD, as the JavaScript encoder in builtins.js does.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")


def _message(spec: str | list[str], args: Mapping[str, Any]) -> str:
    """A digest request's message: its text, or [prefix, argument name, suffix] (see builtins.js)."""
    if isinstance(spec, str):
        return spec
    prefix, name, suffix = spec
    return prefix + str(args[name]) + suffix


def _digest_hex(op: str, key: str, msg: str) -> str:
    if op == "sha256":
        return hashlib.sha256(_utf8(msg)).hexdigest()
    if op == "hmac":
        return hmac.new(_utf8(key), _utf8(msg), hashlib.sha256).hexdigest()
    raise ScriptRuntimeError("Unexpected digest request from the script driver.")
