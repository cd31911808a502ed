"""No input answers a server error: Schemathesis over the ingress's own /openapi.json, every operation, with a
real company's keys, then a sweep of hostile bytes in paths, query strings and headers over raw HTTP.

A 503 is allowed: it is the deliberate answer of a dependency that is down (the readiness probe, a broker
that did not acknowledge). Any other 5xx fails the test with the request that caused it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import Case, GenerationMode

from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Ingress, ServedIngress, make_settings, migrated
from tests.fixtures.tables import ORDERS

pytestmark = pytest.mark.integration
EXAMPLES = int(os.environ.get("SVC_TEST_SWEEP_EXAMPLES", "12"))
"""Examples per operation and generation mode: the module stays well under two minutes. A longer hunt
(SVC_TEST_SWEEP_EXAMPLES=200) also draws new inputs on every run; the default run is reproducible."""
TRIGGER = "/clients/custom-webhooks"


@dataclass
class Sweep:
    server: Ingress
    client_key: str
    poweruser_key: str
    webhook_id: str
    webhook_key: str
    table_id: str
    turn: itertools.count[int] = field(default_factory=itertools.count)

    def key_for(self, path: str) -> str:
        if path.startswith("/svc_poweruser/"):
            return self.poweruser_key
        return self.webhook_key if path == TRIGGER else self.client_key


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[Sweep]:
    settings = make_settings(
        Path(tmp_path_factory.mktemp("sweep")),
        kafka_bootstrap=kafka_bootstrap,
        # The sweep sends thousands of calls with one key and many refused ones: no limit may end it early.
        rate_limit_per_minute=10**7,
        rate_limit_per_day=10**9,
        webhook_rate_limit_per_minute=10**7,
        auth_failures_per_minute=10**7,
    )
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        server = ServedIngress(settings)
        server.start()
        try:
            company = db.create_company()
            power = {"Authorization": company.poweruser_key}
            hook = server.client.post(
                "/svc_poweruser/custom-webhooks/create", headers=power, json={"webhookConfig": {"name": "h"}}
            )
            assert hook.status_code == 200, hook.text
            table = server.client.post("/svc_poweruser/analytics/tables/create", headers=power, json=ORDERS)
            assert table.status_code == 200, table.text
            found = Sweep(
                server=server,
                client_key=company.client_api_key,
                poweruser_key=company.poweruser_key,
                webhook_id=hook.json()["webhook"]["id"],
                webhook_key=hook.json()["apiKey"],
                table_id=table.json()["tableId"],
            )
            yield found
        finally:
            server.stop()


@pytest.fixture(scope="module")
def api_schema(sweep: Sweep) -> Any:
    """The document the running ingress serves, as Schemathesis reads it."""
    schema = schemathesis.openapi.from_url(f"{sweep.server.base_url}/openapi.json")
    schema.config.generation.update(allow_x00=True)
    return schema


def _operations() -> list[tuple[str, str, bool]]:
    """Every operation of the app's document, known at collection, and whether it declares inputs (without
    any, no input is invalid by the document). Read from docs/openapi.json, which
    tests/unit/test_openapi_document.py holds equal to the document the app serves."""
    document = json.loads((Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text())
    return sorted(
        (method.upper(), path, bool(operation.get("parameters") or operation.get("requestBody")))
        for path, item in document["paths"].items()
        for method, operation in item.items()
    )


OPERATIONS = _operations()
CASES = [
    pytest.param(method, path, mode, id=f"{method} {path} {mode.value}")
    for method, path, has_inputs in OPERATIONS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if has_inputs or mode is GenerationMode.POSITIVE
]


def _aim_at_real_resources(case: Case[Any], sweep: Sweep) -> None:
    """Every other call names the company's real table or webhook, so the calls reach past the lookups."""
    if next(sweep.turn) % 2:
        return
    if isinstance(case.query, dict) and "resourceId" in case.query:
        case.query["resourceId"] = sweep.table_id
    if isinstance(case.body, dict):
        if "tableId" in case.body:
            case.body["tableId"] = sweep.table_id
        if "webhookId" in case.body:
            case.body["webhookId"] = sweep.webhook_id


def _call(case: Case[Any], sweep: Sweep) -> None:
    _aim_at_real_resources(case, sweep)
    if case.path == TRIGGER:  # the trigger reads its query itself, so the document declares none
        case.query = {**(case.query or {}), "resourceId": sweep.webhook_id}
    response = case.call(headers={"Authorization": sweep.key_for(case.path)}, timeout=60)
    assert response.status_code < 500 or response.status_code == 503, (
        f"{case.method} {case.formatted_path} query={case.query} -> {response.status_code}: "
        f"{response.text[:500]}"
    )


@pytest.mark.parametrize(("method", "path", "mode"), CASES)
# Schemathesis's own strategies draw from `random`; Hypothesis warns about it, which is not our concern.
@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
def test_no_operation_answers_a_server_error(
    method: str, path: str, mode: GenerationMode, api_schema: Any, sweep: Sweep
) -> None:
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize="SVC_TEST_SWEEP_EXAMPLES" not in os.environ,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: the failing request is in the message
        suppress_health_check=list(HealthCheck),
    )
    def call(case: Case[Any]) -> None:
        _call(case, sweep)

    try:
        call()
    except Unsatisfiable:
        # Nothing the document declares can be wrong (a path's free-form string): no negative case exists.
        if mode is not GenerationMode.NEGATIVE:
            raise


def test_the_sweep_covers_every_served_operation(sweep: Sweep) -> None:
    """The parametrization above is the served document's whole list of operations."""
    document = sweep.server.client.get("/openapi.json").json()
    operations = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    assert operations == {(method, path) for method, path, _ in OPERATIONS}
    assert len(operations) > 40


# Bytes no generator sends: invalid UTF-8, NULs, lone percent signs, oversized values, raw non-ASCII, in the
# path, the query string and the headers, over a raw socket (HTTP clients refuse to send most of them).
BAD_SEGMENTS = [
    b"%FF%FE",
    b"\xff\xfe",
    b"%C3%28",
    b"%E2%82%AC",
    b"\xc3\xa9t\xc3\xa9",
    b"%00",
    b"%",
    b"%zz",
    b"a.%FF",
    b"..%2F..%2Fetc",
    b"A" * 6000,
    b"eyJ4Ijox.\xff",
    b"e30.AAAA",
    b"%C3%A9t%C3%A9.AAAA",
    b"e30.%F0%9F%98%80",
    b"%FF.x",
]
BAD_QUERIES = [
    b"resourceId=%FF",
    b"resourceId=\xff\xfe",
    b"resourceId=%00",
    b"resourceId=%C3%28&resourceId=%FF",
    b"resourceId=" + b"a" * 10_000,
    b"%FF=%FE",
    b"=&&=&",
    b"resourceId",
    b"%",
    b"resourceId=%zz",
    b"authorization=%FF",
    b"authorization=wh:%FF%FE:%00",
    b"authorization=\xc3\xa9",
]
BAD_HEADERS = [
    (b"Authorization", b"\xff\xfe"),
    (b"Authorization", b"wh:" + b"\xc3\xa9" * 20 + b":" + b"x" * 43),
    (b"Authorization", b"pwrusr:" + b"\xff" * 32 + b":" + b"x" * 43),
    (b"Authorization", b"svck_" + b"\x80" * 40),
    (b"Authorization", b"Bearer " + b"\xe2\x82\xac" * 10),
    (b"Authorization", b"x" * 20_000),
    (b"X-Request-Id", b"\xff" * 20),
    (b"Content-Type", b"application/json; charset=\xff"),
    (b"Content-Type", b"multipart/form-data; boundary=\xff\xfe"),
    (b"Content-Type", b"\xff/\xfe"),
    (b"Cookie", b"a=\xff; b=%FF"),
    (b"Accept", b"\xff"),
    (b"X-Forwarded-For", b"\xff, not-an-address, 999.1.1.1"),
]


def _raw_status(sweep: Sweep, method: str, target: bytes, headers: list[tuple[bytes, bytes]]) -> int:
    """Send one request byte for byte; the status of the answer (0: the server closed without one)."""
    host, port = "127.0.0.1", sweep.server.settings.port
    body = b"{}" if method in {"POST", "PUT", "PATCH"} else b""
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: " + f"{host}:{port}".encode()]
    names = {name.lower() for name, _ in headers}
    lines += [name + b": " + value for name, value in headers]
    if b"content-type" not in names:
        lines.append(b"Content-Type: application/json")
    lines += [b"Content-Length: " + str(len(body)).encode(), b"Connection: close"]
    with socket.create_connection((host, port), timeout=60) as connection:
        connection.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        answer = b""
        while b"\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    status_line = answer.split(b"\r\n", 1)[0].split(b" ")
    return int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0


def _requests(sweep: Sweep, method: str, path: str) -> Iterator[tuple[bytes, list[tuple[bytes, bytes]]]]:
    key = (b"Authorization", sweep.key_for(path).encode())
    query = b"?resourceId=" + (sweep.webhook_id if path == TRIGGER else sweep.table_id).encode()
    raw_path = path.encode()
    if b"{token}" in raw_path:
        for segment in BAD_SEGMENTS:
            yield raw_path.replace(b"{token}", segment), [key]
        raw_path = raw_path.replace(b"{token}", b"e30.AAAA")
    else:
        for segment in BAD_SEGMENTS[:6]:
            yield raw_path + b"/" + segment, [key]
    for bad_query in BAD_QUERIES:
        yield raw_path + b"?" + bad_query, [key]
    for name, value in BAD_HEADERS:
        yield raw_path + query, [(name, value)] if name == b"Authorization" else [key, (name, value)]


@pytest.mark.parametrize(
    ("method", "path"), [(m, p) for m, p, _ in OPERATIONS], ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
def test_hostile_bytes_never_answer_a_server_error(method: str, path: str, sweep: Sweep) -> None:
    failures = []
    for target, headers in _requests(sweep, method, path):
        status = _raw_status(sweep, method, target, headers)
        if status == 0 or (status >= 500 and status != 503):
            failures.append(f"{method} {target[:120]!r} {[(n, v[:60]) for n, v in headers]} -> {status}")
    assert failures == []


@pytest.mark.parametrize(
    "token",
    [
        "%C3%A9t%C3%A9.AAAA",  # non-ASCII claims: a signature computed over ASCII would raise
        "e30.%F0%9F%98%80",
        "A" * 5000 + ".AAAA",
        "e30.AAAA",  # well-formed, wrong signature
        "!!!.???",
        "e30",
        "a.b.c",
    ],
)
def test_a_download_link_of_any_shape_is_refused_in_the_analytics_format(token: str, sweep: Sweep) -> None:
    answer = httpx.get(f"{sweep.server.base_url}/clients/svcdb/analytics/download/{token}", timeout=30)
    assert answer.status_code == 403, answer.text
    body = answer.json()
    assert body["errorCode"] == "FORBIDDEN" and set(body) == {"errorCode", "errors", "hint"}
    assert body["errors"][0].startswith("This download link is not valid")
