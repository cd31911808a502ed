"""The script sandbox: results, errors, limits, isolation and the `svc` helpers."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import quickjs

from sinks.scripting import sandbox
from sinks.scripting.sandbox import (
    DEFAULT_REJECTION_MESSAGE,
    ScriptCompileError,
    ScriptError,
    ScriptLimits,
    ScriptMemoryError,
    ScriptResultError,
    ScriptRuntimeError,
    ScriptTimeoutError,
    ValidationOutcome,
    compile_check,
    run_script,
    run_transform_script,
    run_validation,
)
from sinks.scripting.workers import ScriptWorkerPool

pytestmark = pytest.mark.integration

SECRET_HEADER = {"Authorization": "wh:key123:averysecretvalue", "X-Api-Token": "tok_9f8e7d6c5b"}


@pytest.fixture
def pool() -> Iterator[ScriptWorkerPool]:
    """A private pool, for tests that kill workers or check what happens after a failure."""
    own = ScriptWorkerPool(max_workers=2)
    yield own
    own.close()


def validate(script: str, **kwargs: Any) -> ValidationOutcome:
    return run_validation(script, kwargs.pop("headers", {}), kwargs.pop("body", ""), {}, **kwargs)


def in_process(script: str, args: dict[str, Any], *, defer_min_chars: int, time_ms: int = 10_000) -> Any:
    """Run a trusted script in this process, choosing where long digests are computed."""
    request = {
        "script": script,
        "argNames": list(args),
        "args": args,
        "now": 0,
        "deferMinChars": defer_min_chars,
    }
    return sandbox.execute_in_process(request, ScriptLimits(time_ms=time_ms)).get("value")


# ---- results ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("return true", ValidationOutcome(True, "")),
        ("return false", ValidationOutcome(False, DEFAULT_REJECTION_MESSAGE)),
        ("return {valid: true}", ValidationOutcome(True, "")),
        ("return {valid: false}", ValidationOutcome(False, DEFAULT_REJECTION_MESSAGE)),
        ("return {valid: false, message: 'Bad signature.'}", ValidationOutcome(False, "Bad signature.")),
        ("return {valid: true, message: 'ok', extra: 1}", ValidationOutcome(True, "ok")),
        ("return {valid: false, message: 'x'.repeat(2000)}", ValidationOutcome(False, "x" * 500)),
    ],
)
def test_validation_results(script: str, expected: ValidationOutcome) -> None:
    assert validate(script) == expected


@pytest.mark.parametrize(
    "script",
    [
        "return 1",
        "return 'true'",
        "return null",
        "return",
        "return [true]",
        "return {valid: 'true'}",
        "return {message: 'no valid field'}",
        "return {valid: false, message: 42}",
        "return Promise.resolve(true)",
        "return (async () => true)()",
        "return () => true",
    ],
)
def test_validation_rejects_results_of_the_wrong_type(script: str) -> None:
    with pytest.raises(ScriptResultError) as caught:
        validate(script)
    assert caught.value.kind == "result"


def test_scripts_see_their_arguments_as_plain_data() -> None:
    script = """
      return {
        valid: headers['X-Test'] === 'a' && body === '{"n":1}' && queryParams.page === '2'
          && JSON.parse(body).n === 1 && Object.getPrototypeOf(headers) === Object.prototype,
      };
    """
    assert run_validation(script, {"X-Test": "a"}, '{"n":1}', {"page": "2"}).valid


def test_transform_script_returns_an_object() -> None:
    script = "const e = JSON.parse(payload); return {id: e.id, tags: e.tags, q: queryParams.q, h: headers.h}"
    result = run_transform_script(script, '{"id": 7, "tags": ["a"]}', {"h": "v"}, {"q": "x"})
    assert result == {"id": 7, "tags": ["a"], "q": "x", "h": "v"}


@pytest.mark.parametrize("script", ["return [1, 2]", "return 'x'", "return null", "return", "return 3"])
def test_transform_script_must_return_an_object(script: str) -> None:
    with pytest.raises(ScriptResultError):
        run_transform_script(script, "", {}, {})


@pytest.mark.parametrize(
    ("script", "fragment"),
    [("return {n: 1n}", "BigInt"), ("const a = {}; a.self = a; return a", "circular")],
)
def test_results_that_are_not_json_are_result_errors(script: str, fragment: str) -> None:
    with pytest.raises(ScriptResultError, match=re.compile(fragment, re.IGNORECASE)):
        run_transform_script(script, "", {}, {})


def test_strings_cross_the_boundary_intact() -> None:
    awkward = 'nul\x00 quote" backslash\\ line\u2028 emoji\U0001f600 é'
    result = run_transform_script("return {same: payload, length: payload.length}", awkward, {}, {})
    assert result == {"same": awkward, "length": len(awkward.encode("utf-16-le")) // 2}


# ---- compile checks and errors ---------------------------------------------------------------------------


def test_compile_check_accepts_a_valid_body() -> None:
    compile_check("const x = JSON.parse(body); return x.ok === true;", sandbox.VALIDATION_ARGS)


def test_compile_check_does_not_run_the_script() -> None:
    compile_check("while (true) {}", sandbox.VALIDATION_ARGS)


def test_syntax_errors_name_the_line() -> None:
    with pytest.raises(ScriptCompileError) as caught:
        compile_check("const a = 1;\nconst b = ;\nreturn a;", sandbox.VALIDATION_ARGS)
    assert caught.value.kind == "compile"
    assert caught.value.line == 2
    assert "SyntaxError" in str(caught.value)
    assert "(line 2)" in str(caught.value)


@pytest.mark.parametrize(
    "script",
    [
        "return true }); globalThis.x = (function () {",
        "}\nfunction other() {",
        "import os from 'os';\nreturn true",
        "function (headers) { return true }",
    ],
)
def test_scripts_that_are_not_a_function_body_are_refused(script: str) -> None:
    with pytest.raises(ScriptCompileError):
        compile_check(script, sandbox.VALIDATION_ARGS)
    with pytest.raises(ScriptCompileError):
        validate(script)


def test_a_nul_character_is_a_compile_error() -> None:
    with pytest.raises(ScriptCompileError):
        compile_check("return '\x00'", sandbox.VALIDATION_ARGS)


def test_argument_names_must_be_identifiers() -> None:
    with pytest.raises(ValueError, match="identifiers"):
        compile_check("return 1", ["headers", "a-b"])
    with pytest.raises(ValueError, match="identifiers"):
        compile_check("return 1", ["body", "body"])


def test_runtime_errors_carry_message_and_line() -> None:
    with pytest.raises(ScriptRuntimeError) as caught:
        validate("const a = 1;\n\nthrow new Error('no signature header');")
    assert caught.value.kind == "runtime"
    assert caught.value.line == 3
    assert "Error: no signature header" in str(caught.value)


def test_runtime_errors_inside_helpers_point_at_the_script_line() -> None:
    with pytest.raises(ScriptRuntimeError) as caught:
        validate("const x = 1;\nreturn svc.base64Decode('***');")
    assert caught.value.line == 2
    assert "base64" in str(caught.value)


def test_throwing_null_is_reported() -> None:
    with pytest.raises(ScriptRuntimeError, match="null or undefined"):
        validate("throw null")


@pytest.mark.parametrize(
    "script",
    [
        "return JSON.parse(headers.Authorization)",
        "throw new Error('header was ' + headers.Authorization)",
        "throw new Error('token=' + headers['X-Api-Token'] + '!')",
        "null[headers['X-Api-Token']]",
        "throw new Error(JSON.stringify(headers))",
    ],
)
def test_error_messages_never_repeat_header_values(script: str) -> None:
    with pytest.raises(ScriptError) as caught:
        validate(script, headers=SECRET_HEADER)
    message = str(caught.value)
    for value in SECRET_HEADER.values():
        for part in value.split(":"):
            assert part not in message, message


# ---- limits ----------------------------------------------------------------------------------------------


def test_an_endless_loop_times_out_and_the_sandbox_recovers(pool: ScriptWorkerPool) -> None:
    started = time.monotonic()
    with pytest.raises(ScriptTimeoutError) as caught:
        validate("while (true) {}", pool=pool)
    assert caught.value.kind == "timeout"
    assert "100 ms" in str(caught.value)
    assert time.monotonic() - started < 2
    assert validate("return true", pool=pool).valid


def test_unbounded_allocation_fails_cleanly(pool: ScriptWorkerPool) -> None:
    with pytest.raises((ScriptMemoryError, ScriptTimeoutError)) as caught:
        validate("let a = []; while (true) a.push('x'.repeat(1e6));", pool=pool)
    assert caught.value.kind in ("memory", "timeout")
    assert validate("return true", pool=pool).valid


def test_one_huge_string_fails_cleanly(pool: ScriptWorkerPool) -> None:
    with pytest.raises(ScriptError) as caught:
        validate("return 'x'.repeat(2 ** 29).length > 0", pool=pool)
    assert caught.value.kind in ("memory", "runtime")


def test_deep_recursion_fails_cleanly(pool: ScriptWorkerPool) -> None:
    with pytest.raises(ScriptMemoryError, match="stack"):
        validate("function down(n) { return down(n + 1) + 1 } return down(0) > 0", pool=pool)
    assert validate("return true", pool=pool).valid


@pytest.mark.parametrize(
    "script",
    [
        "return /(a+)+$/.test('a'.repeat(40) + 'b')",
        "return new Array(2 ** 31).join('').length === 0",
        "return Array.prototype.indexOf.call({length: 2 ** 52}, 1) >= 0",
    ],
)
def test_work_the_cpu_limit_cannot_interrupt_is_stopped_by_the_deadline(
    pool: ScriptWorkerPool, script: str
) -> None:
    limits = ScriptLimits(wall_ms=300)
    started = time.monotonic()
    with pytest.raises(ScriptTimeoutError):
        validate(script, pool=pool, limits=limits)
    assert time.monotonic() - started < 5
    assert validate("return true", pool=pool).valid


def test_limits_are_configurable(pool: ScriptWorkerPool) -> None:
    spin = "const end = 3e5; let x = 0; for (let i = 0; i < end; i++) x += i; return x > 0"
    with pytest.raises(ScriptTimeoutError, match="1 ms"):
        validate(spin, pool=pool, limits=ScriptLimits(time_ms=1))
    with pytest.raises(ScriptMemoryError):
        validate(
            "return 'x'.repeat(4e6).split('').length > 0",
            pool=pool,
            limits=ScriptLimits(memory_bytes=1 << 20),
        )


def test_a_closed_pool_refuses_work() -> None:
    own = ScriptWorkerPool(max_workers=1)
    assert validate("return true", pool=own).valid
    own.close()
    with pytest.raises(RuntimeError, match="closed"):
        validate("return true", pool=own)


# ---- isolation -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "require", "std", "os", "fetch", "XMLHttpRequest", "setTimeout", "setInterval", "console", "print",
        "scriptArgs", "process", "Deno", "WebAssembly", "__date_clock", "module", "exports", "importScripts",
    ],
)  # fmt: skip
def test_nothing_outside_the_script_is_reachable(name: str) -> None:
    assert run_script(
        f"return typeof globalThis[{name!r}] === 'undefined' && typeof {name} === 'undefined'", {}
    ) == (
        "boolean",
        True,
    )


def test_dynamic_import_has_no_loader() -> None:
    # The sandbox relies on the engine having no module loader: import() must reject, not load.
    context = quickjs.Context()
    context.eval(
        "var outcome = 'pending';"
        "import('os').then(() => { outcome = 'loaded' }, (e) => { outcome = String(e) })"
    )
    while context.execute_pending_job():
        pass
    assert "loaded" not in context.get("outcome")
    assert context.get("outcome") != "pending"
    assert run_script("return typeof import('os').then", {}) == ("string", "function")


def test_blocking_primitives_cannot_block() -> None:
    with pytest.raises(ScriptRuntimeError, match="cannot block"):
        run_script("return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000)", {})


def test_each_run_starts_from_a_clean_environment(pool: ScriptWorkerPool) -> None:
    tamper = """
      globalThis.leaked = 'x';
      Object.prototype.polluted = 'x';
      Array.prototype.map = () => 'hijacked';
      JSON.parse = () => ({});
      try { svc.timingSafeEqual = () => true } catch (e) { }
      return true
    """
    assert validate(tamper, pool=pool).valid
    check = """
      return typeof leaked === 'undefined' && ({}).polluted === undefined && [1].map((x) => x)[0] === 1
        && JSON.parse('{"a":1}').a === 1 && svc.timingSafeEqual('a', 'b') === false
    """
    for _ in range(pool.max_workers * 2):
        assert validate(check, pool=pool).valid


def test_svc_cannot_be_replaced_within_a_run() -> None:
    script = """
      try { svc.timingSafeEqual = () => true } catch (e) { }
      try { globalThis.svc = {timingSafeEqual: () => true} } catch (e) { }
      return svc.timingSafeEqual('a', 'b')
    """
    assert validate(script) == ValidationOutcome(False, DEFAULT_REJECTION_MESSAGE)


def test_the_clock_is_pinned_to_the_delivery_time() -> None:
    script = """
      return {
        seconds: svc.nowSeconds(), now: Date.now(), constructed: new Date().getTime(),
        called: Date(), epoch: new Date(0).getTime(), isDate: new Date() instanceof Date,
        parsed: Date.parse('2024-01-01T00:00:00Z'), utc: Date.UTC(2024, 0, 1),
      }
    """
    result = run_transform_script(script, "", {}, {}, now=1_700_000_000.75)
    assert result["seconds"] == 1_700_000_000
    assert result["now"] == result["constructed"] == 1_700_000_000_750
    assert "2023" in result["called"]
    assert result["epoch"] == 0
    assert result["isDate"] is True
    assert result["parsed"] == result["utc"] == 1_704_067_200_000


def test_the_clock_defaults_to_now() -> None:
    before = int(time.time())
    _, seconds = run_script("return svc.nowSeconds()", {})
    assert before <= seconds <= time.time() + 1


def test_many_threads_share_the_sandbox() -> None:
    def one(i: int) -> bool:
        body = json.dumps({"i": i})
        signature = hmac.new(b"k", body.encode(), hashlib.sha256).hexdigest()
        script = (
            "return svc.hmacSha256Hex('k', body) === headers.sig"
            " && JSON.parse(body).i === Number(queryParams.i)"
        )
        return run_validation(script, {"sig": signature}, body, {"i": str(i)}).valid

    with ThreadPoolExecutor(max_workers=8) as executor:
        assert all(executor.map(one, range(64)))


# ---- svc helpers -----------------------------------------------------------------------------------------

DIGESTS_SCRIPT = """
  return cases.map(([key, message]) => [
    svc.sha256Hex(message), svc.sha256Base64(message),
    svc.hmacSha256Hex(key, message), svc.hmacSha256Base64(key, message),
  ]);
"""


def random_text(rng: random.Random, length: int) -> str:
    alphabet = "abcXYZ019 \n\t\"'\\{}\x00\x7f\u00e9\u00df\u0416\u4e2d\u20ac\U0001f600\U00010348"
    return "".join(rng.choice(alphabet) for _ in range(length))


def expected_digests(key: str, message: str) -> list[str]:
    sha = hashlib.sha256(message.encode()).digest()
    mac = hmac.new(key.encode(), message.encode(), hashlib.sha256).digest()
    return [sha.hex(), base64.b64encode(sha).decode(), mac.hex(), base64.b64encode(mac).decode()]


@pytest.mark.parametrize("defer_min_chars", [10**9, 0], ids=["javascript", "native"])
def test_digests_match_hashlib(defer_min_chars: int) -> None:
    rng = random.Random(20240611)  # noqa: S311 - reproducible test data
    lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4097]
    cases = [(random_text(rng, rng.randrange(0, 200)), random_text(rng, n)) for n in lengths]
    cases += [
        (random_text(rng, rng.randrange(0, 70)), random_text(rng, rng.randrange(0, 300))) for _ in range(150)
    ]
    cases += [
        ("k" * 64, "exactly one block key"),
        ("k" * 65, "hashed key"),
        ("é" * 40, "multi-byte key over 64 bytes"),
    ]
    cases += [("key", "x" * 100_000)]
    result = in_process(DIGESTS_SCRIPT, {"cases": cases}, defer_min_chars=defer_min_chars)
    assert result == [expected_digests(key, message) for key, message in cases]


@pytest.mark.parametrize("defer_min_chars", [10**9, 0], ids=["javascript", "native"])
def test_lone_surrogates_hash_as_replacement_characters(defer_min_chars: int) -> None:
    cases = [("k\ud800", "a\udc00b"), ("key", "\ud83d"), ("key", "x\ude00\ud83d")]
    result = in_process(DIGESTS_SCRIPT, {"cases": cases}, defer_min_chars=defer_min_chars)

    def replaced(text: str) -> str:
        return re.sub("[\ud800-\udfff]", "\ufffd", text)

    assert result == [expected_digests(replaced(key), replaced(message)) for key, message in cases]


def test_long_bodies_are_hashed_natively_within_the_default_limits() -> None:
    body = json.dumps({"data": "é" * 300_000, "more": "x" * 500_000})
    signature = hmac.new(b"secret", body.encode(), hashlib.sha256).hexdigest()
    script = "return svc.timingSafeEqual(svc.hmacSha256Hex('secret', body), headers.sig)"
    assert run_validation(script, {"sig": signature}, body, {}).valid
    assert not run_validation(script, {"sig": "0" * 64}, body, {}).valid


def test_long_messages_derived_from_the_body_hash_correctly() -> None:
    body = "é" + "body text " * 50_000
    script = """
      const messages = [body, '1718000000.' + body, 'v0:1:' + body, body + '#tail', body.slice(1)];
      return [...messages, body + body, 'x'.repeat(5000)]
        .map((message) => [svc.hmacSha256Hex('k', message), svc.sha256Base64(message)]);
    """
    messages = [body, "1718000000." + body, "v0:1:" + body, body + "#tail", body[1:], body + body, "x" * 5000]
    _, digests = run_script(script, {"body": body})
    assert digests == [[expected_digests("k", m)[2], expected_digests("k", m)[1]] for m in messages]


def test_digests_of_unrepeatable_input_still_complete() -> None:
    _, digest = run_script("return svc.sha256Hex('x'.repeat(3000) + Math.random())", {})
    assert re.fullmatch("[0-9a-f]{64}", digest)


def test_helpers_refuse_non_strings() -> None:
    with pytest.raises(ScriptRuntimeError, match="must be a string"):
        run_script("return svc.hmacSha256Hex('key', undefined)", {})
    with pytest.raises(ScriptRuntimeError, match="must be a string"):
        run_script("return svc.sha256Hex(42)", {})


def test_base64_matches_python() -> None:
    rng = random.Random(7)  # noqa: S311 - reproducible test data
    texts = [random_text(rng, n) for n in range(0, 40)]
    _, encoded = run_script("return texts.map((t) => svc.base64Encode(t))", {"texts": texts})
    assert encoded == [base64.b64encode(t.encode()).decode() for t in texts]
    _, decoded = run_script("return encoded.map((t) => svc.base64Decode(t))", {"encoded": encoded})
    assert decoded == texts


@pytest.mark.parametrize(
    ("encoded", "expected"),
    [
        ("aGVsbG8gd29ybGQ=", "hello world"),
        ("aGVsbG8gd29ybGQ", "hello world"),
        ("aGVs bG8g\nd29y bGQ=", "hello world"),
        (base64.urlsafe_b64encode("ü?>~".encode()).decode(), "ü?>~"),
        (base64.b64encode(b"\xff\xfeok").decode(), "\ufffd\ufffdok"),
        ("", ""),
    ],
)
def test_base64_decode_is_lenient_about_alphabet_padding_and_utf8(encoded: str, expected: str) -> None:
    assert run_script("return svc.base64Decode(text)", {"text": encoded}) == ("string", expected)


@pytest.mark.parametrize("encoded", ["a", "ab$c", "a=bc"])
def test_base64_decode_refuses_garbage(encoded: str) -> None:
    with pytest.raises(ScriptRuntimeError, match="not valid base64"):
        run_script("return svc.base64Decode(text)", {"text": encoded})


def test_timing_safe_equal() -> None:
    script = """
      return [svc.timingSafeEqual('abc', 'abc'), svc.timingSafeEqual('abc', 'abd'),
              svc.timingSafeEqual('abc', 'abcd'), svc.timingSafeEqual('', ''),
              svc.timingSafeEqual(undefined, undefined), svc.timingSafeEqual('1', 1)]
    """
    assert run_script(script, {}) == ("array", [True, False, False, True, False, False])


def test_header_lookup_ignores_case() -> None:
    script = """
      return [svc.header(headers, 'content-type'), svc.header(headers, 'X-SIGNATURE'),
              svc.header(headers, 'X-Same'), svc.header(headers, 'missing') === undefined,
              svc.header(undefined, 'x') === undefined]
    """
    headers = {"Content-Type": "application/json", "x-signature": "abc", "x-same": "lower", "X-Same": "exact"}
    assert run_script(script, {"headers": headers}) == (
        "array",
        ["application/json", "abc", "exact", True, True],
    )


def test_errors_rebuild_from_their_kind() -> None:
    for kind, cls in [
        ("compile", ScriptCompileError),
        ("timeout", ScriptTimeoutError),
        ("bogus", ScriptRuntimeError),
    ]:
        error = ScriptError.of(kind, "message", 4)
        assert type(error) is cls
        assert str(error) == "message (line 4)"


def test_a_worker_that_died_while_idle_is_replaced(pool: ScriptWorkerPool) -> None:
    assert validate("return true", pool=pool).valid
    for worker in pool._idle:
        worker.proc.kill()
        worker.proc.wait()
    assert validate("return true", pool=pool).valid
