from collections.abc import Iterator

import httpx
import pytest

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from tests.fixtures.stack import Db, Ingress, ServedIngress, make_settings, migrated
from tests.fixtures.windows import with_window_left

# The HTTP server's own behaviour (request ids, size limits, errors) is what this module tests.
pytestmark = [pytest.mark.integration, pytest.mark.served]


def test_health_ready_and_docs(ingress: Ingress) -> None:
    client = ingress.client
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"database": "ok", "broker": "ok", "storage": "ok"}
    assert client.get("/openapi.json").json()["info"]["title"] == "svc"
    assert client.get("/docs").status_code == 200


def test_metrics_are_served_on_their_own_loopback_listener_not_the_public_port(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> None:
    metrics_port = broker.free_port()
    settings = make_settings(
        tmp_path_factory.mktemp("metrics") / "data",
        kafka_bootstrap=kafka_bootstrap,
        metrics_port=metrics_port,
    )
    for server, _db in _serve(settings):
        assert server.client.get("/healthz").status_code == 200
        public = server.client.get("/metrics")
        assert public.status_code == 404 and public.headers["X-Request-Id"]
        assert "/metrics" not in server.client.get("/openapi.json").json()["paths"]
        scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10)
        assert scraped.status_code == 200 and scraped.headers["X-Request-Id"]
        assert 'svc_http_requests_total{method="GET",route="/healthz",status="200"}' in scraped.text
        # The public /metrics attempt is counted like any other unknown path.
        assert 'status="404"' in scraped.text


def test_every_response_carries_a_request_id(ingress: Ingress) -> None:
    answers = [
        ingress.client.get("/healthz"),
        ingress.client.get("/no-such-path"),
        ingress.client.post("/clients/whoami", json={}),
        ingress.client.post(
            "/clients/whoami", headers={"Authorization": "svck_wrong_key_that_is_long"}, json={}
        ),
    ]
    ids = [answer.headers.get("X-Request-Id") for answer in answers]
    assert all(ids) and len(set(ids)) == len(ids)
    assert answers[1].status_code == 404 and answers[1].json() == {"errors": ["Not Found"]}
    echoed = ingress.client.get("/healthz", headers={"X-Request-Id": "caller-chosen-id-1"})
    assert echoed.headers["X-Request-Id"] == "caller-chosen-id-1"


def test_keys_authenticate_and_wrong_keys_get_401(ingress: Ingress, ingress_db: Db) -> None:
    created = ingress_db.create_company()
    client = ingress.client
    me = client.post("/clients/whoami", headers={"Authorization": created.client_api_key}, json={})
    assert me.status_code == 200, me.text
    assert me.json() == {
        "companyId": created.company_id,
        "userId": created.user_id,
        "email": "admin@acme.test",
        "isAdmin": True,
        "keyType": "CLIENT",
        "errors": [],
    }
    power = client.post("/svc_poweruser/whoami", headers={"Authorization": created.poweruser_key}, json={})
    assert power.status_code == 200 and power.json()["keyType"] == "POWERUSER"

    missing = client.post("/clients/whoami", json={})
    assert missing.status_code == 401 and missing.json()["errors"][0].startswith("Missing API key")
    for wrong in (created.poweruser_key, created.client_api_key + "x", f"Bearer {created.client_api_key}"):
        answer = client.post("/clients/whoami", headers={"Authorization": wrong}, json={})
        assert answer.status_code == 401 and answer.json() == {"errors": ["Invalid API key"]}
    crossed = client.post("/svc_poweruser/whoami", headers={"Authorization": created.client_api_key}, json={})
    assert crossed.status_code == 401


def test_unknown_body_fields_are_a_400(ingress: Ingress, ingress_db: Db) -> None:
    created = ingress_db.create_company()
    answer = ingress.client.post(
        "/clients/whoami", headers={"Authorization": created.client_api_key}, json={"surprise": 1}
    )
    assert answer.status_code == 400
    assert answer.json()["errors"] == ["surprise: Extra inputs are not permitted"]


@pytest.fixture
def limited(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[tuple[Ingress, Db]]:
    settings = make_settings(
        tmp_path_factory.mktemp("limited"),
        kafka_bootstrap=kafka_bootstrap,
        rate_limit_per_minute=3,
        max_request_bytes=4096,
    )
    yield from _serve(settings)


def _serve(settings: Settings) -> Iterator[tuple[Ingress, Db]]:
    with migrated(settings) as db:
        server = ServedIngress(settings)

        @server.app.post("/boom")
        def boom() -> None:
            raise RuntimeError("kaboom")

        server.start()
        try:
            yield server, db
        finally:
            server.stop()


def test_rate_limits_headers_and_429(limited: tuple[Ingress, Db]) -> None:
    server, db = limited
    key = {"Authorization": db.create_company().client_api_key}
    with_window_left()  # the four calls in one fixed window
    answers = [server.client.post("/clients/whoami", headers=key, json={}) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a.headers["X-RateLimit-Remaining-Minute"] for a in answers] == ["2", "1", "0", "0"]
    for answer in answers:
        assert answer.headers["X-RateLimit-Limit-Minute"] == "3"
        assert "X-RateLimit-Limit-Day" in answer.headers and "X-RateLimit-Remaining-Day" in answer.headers
    refused = answers[-1]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.json()["errors"][0].startswith("Rate limit exceeded")
    other = {"Authorization": db.create_company("Other", "a@other.test").client_api_key}
    assert server.client.post("/clients/whoami", headers=other, json={}).status_code == 200


def test_request_size_limit(limited: tuple[Ingress, Db]) -> None:
    server, db = limited
    key = {"Authorization": db.create_company().client_api_key, "Content-Type": "application/json"}
    declared = server.client.post("/clients/whoami", headers=key, content=b"{" + b" " * 5000 + b"}")
    assert declared.status_code == 413
    assert declared.json()["errors"] == ["Request body exceeds the limit of 4096 bytes"]
    assert declared.headers["X-Request-Id"]

    def chunks() -> Iterator[bytes]:
        yield b"{"
        for _ in range(10):
            yield b" " * 1000
        yield b"}"

    streamed = server.client.post("/clients/whoami", headers=key, content=chunks())
    assert streamed.status_code == 413


def test_unexpected_error_is_a_500_with_request_id(limited: tuple[Ingress, Db]) -> None:
    server, _ = limited
    answer = server.client.post("/boom")
    assert answer.status_code == 500
    assert answer.json() == {"errors": ["Internal server error"]}
    assert answer.headers["X-Request-Id"]
    assert "kaboom" not in answer.text


def test_readyz_reports_an_unreachable_broker(tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp = tmp_path_factory.mktemp("ownbroker")
    port = broker.free_port()
    tansu = broker.start_tansu(port, tmp / "broker.log")
    try:
        broker.wait_reachable(f"127.0.0.1:{port}", 30, tansu)
        settings = make_settings(tmp / "data", kafka_bootstrap=f"127.0.0.1:{port}")
        for server, _db in _serve(settings):
            assert server.client.get("/readyz").status_code == 200
            tansu.kill()
            tansu.wait()
            answer = server.client.get("/readyz")
            assert answer.status_code == 503
            assert answer.json()["checks"] == {"database": "ok", "broker": "unreachable", "storage": "ok"}
            assert answer.json()["errors"] == ["broker unreachable"]
            assert server.client.get("/healthz").status_code == 200
    finally:
        tansu.kill()
        tansu.wait()
