"""Failed-authentication lockouts over real HTTP: per key id (a hostile caller guessing one key's secret
locks that key id, not the victim's), per address, and shared by two ingress servers over one DB.

Every test client connects from 127.0.0.1, and the address is the connection's peer (X-Forwarded-For is
not read), so one test cannot play two addresses: the per-key-id tests raise the per-address limit, and
tests/unit/test_ratelimit.py shows one address's lockout leaving another address alone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ingress.auth_throttle import FAILURE_MIN_QUANTUM
from schemas.settings import Settings
from sinks.db import counters
from sinks.embedded_broker import process as broker
from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Db, Ingress, migrated
from tests.fixtures.windows import with_window_left

pytestmark = pytest.mark.integration
TRIGGER = "/clients/custom-webhooks"
LIMIT = 5
WRONG_SECRET = "x" * 43


def _serve(settings: Settings) -> Iterator[tuple[Ingress, Db]]:
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        server = Ingress(settings)
        server.start()
        try:
            yield server, db
        finally:
            server.stop()


@pytest.fixture(autouse=True)
def _one_window() -> None:
    """Failures count in fixed one-minute windows (a test once straddled one's end on a busy machine)."""
    with_window_left()


@pytest.fixture
def per_key(kafka_settings: Settings) -> Iterator[tuple[Ingress, Db]]:
    """Key ids locked after LIMIT failures; the shared test address never is."""
    yield from _serve(
        kafka_settings.model_copy(
            update={"auth_failures_per_minute": LIMIT, "auth_failures_per_address_per_minute": 10_000}
        )
    )


@pytest.fixture
def per_address(kafka_settings: Settings) -> Iterator[tuple[Ingress, Db]]:
    yield from _serve(kafka_settings.model_copy(update={"auth_failures_per_minute": LIMIT}))


def _poweruser(db: Db, name: str) -> tuple[str, str]:
    """A company's poweruser key and its key id (``pwrusr:{keyId}:{secret}``)."""
    key = db.create_company(name, f"admin@{name.lower()}.test").poweruser_key
    return key, key.split(":")[1]


def _assert_locked_api(answer: httpx.Response) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.json() == {
        "errors": [
            "Too many failed authentications from this address or for this key; "
            "retry after the time in Retry-After"
        ]
    }
    assert 1 <= int(answer.headers["Retry-After"]) <= 60


def _assert_locked_trigger(answer: httpx.Response) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.json() == {
        "error": "Too many failed authentications from this address or for this key; "
        "retry after the time in Retry-After."
    }
    assert 1 <= int(answer.headers["Retry-After"]) <= 60


def test_guessing_one_poweruser_key_locks_that_key_id_and_not_the_victims(
    per_key: tuple[Ingress, Db],
) -> None:
    server, db = per_key
    target_key, target_id = _poweruser(db, "Target")
    victim_key, _ = _poweruser(db, "Victim")

    def whoami(key: str) -> httpx.Response:
        return server.client.post("/svc_poweruser/whoami", headers={"Authorization": key}, json={})

    for _ in range(LIMIT):
        assert whoami(f"pwrusr:{target_id}:{WRONG_SECRET}").status_code == 401
    _assert_locked_api(whoami(f"pwrusr:{target_id}:{WRONG_SECRET}"))
    # During the lockout the key is not checked at all: the right key gets the same answer.
    _assert_locked_api(whoami(target_key))
    # The victim, from the same address, with its own key id, is not affected.
    for _ in range(3):
        assert whoami(victim_key).status_code == 200


def _webhook(server: Ingress, poweruser_key: str) -> tuple[str, str]:
    created = server.client.post(
        "/svc_poweruser/custom-webhooks/create",
        headers={"Authorization": poweruser_key},
        json={"webhookConfig": {"name": "hook"}},
    )
    assert created.status_code == 200, created.text
    body: dict[str, Any] = created.json()
    return body["webhook"]["id"], body["apiKey"]


def test_guessing_one_webhook_key_locks_that_key_id_and_not_the_victims(
    per_key: tuple[Ingress, Db],
) -> None:
    server, db = per_key
    target_hook, target_key = _webhook(server, _poweruser(db, "Target")[0])
    victim_hook, victim_key = _webhook(server, _poweruser(db, "Victim")[0])
    key_id = target_key.split(":")[1]

    def fire(webhook_id: str, key: str) -> httpx.Response:
        return server.client.post(TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key})

    for _ in range(LIMIT):
        answer = fire(target_hook, f"wh:{key_id}:{WRONG_SECRET}")
        assert answer.status_code == 401 and answer.json() == {"error": "Invalid API key."}
    _assert_locked_trigger(fire(target_hook, f"wh:{key_id}:{WRONG_SECRET}"))
    _assert_locked_trigger(fire(target_hook, target_key))  # the right key, during the lockout
    for _ in range(3):
        assert fire(victim_hook, victim_key).status_code == 202


def test_an_address_with_too_many_failures_is_refused_even_with_a_right_key(
    per_address: tuple[Ingress, Db],
) -> None:
    server, db = per_address
    client_key = db.create_company().client_api_key

    def whoami(headers: dict[str, str]) -> httpx.Response:
        return server.client.post("/clients/whoami", headers=headers, json={})

    for _ in range(3 * LIMIT):  # a missing key is no failed authentication
        assert whoami({}).status_code == 401
    assert whoami({"Authorization": client_key}).status_code == 200
    for attempt in range(LIMIT):  # client keys carry no key id: only the address counts them
        assert whoami({"Authorization": f"svck_guess_number_{attempt:04d}"}).status_code == 401
    _assert_locked_api(whoami({"Authorization": client_key}))
    # The lockout is the address's, whatever the endpoint: the trigger refuses it too.
    _assert_locked_trigger(
        server.client.post(TRIGGER, params={"resourceId": "0" * 32}, headers={"Authorization": "wh:x"})
    )


def _ports(count: int) -> list[int]:
    return [broker.free_port() for _ in range(count)]


@pytest.fixture
def two_ingresses(kafka_settings: Settings) -> Iterator[tuple[Ingress, Ingress, Db]]:
    limits = {
        "auth_failures_per_minute": LIMIT,
        "auth_failures_per_address_per_minute": 10_000,
        "rate_limit_flush_ms": 20,
    }
    with migrated(kafka_settings) as db:
        servers = [
            Ingress(kafka_settings.model_copy(update={**limits, "port": broker.free_port()}))
            for _ in range(2)
        ]
        for server in servers:
            server.start()
        try:
            yield servers[0], servers[1], db
        finally:
            for server in servers:
                server.stop()


def _stored_failures(db: Db, key_id: str) -> int:
    now = time.time()
    with db.sessions() as session:
        return counters.read(session, f"auth-key:m:{key_id}", int(now // 60) * 60)


def test_failures_at_two_ingress_servers_add_up(two_ingresses: tuple[Ingress, Ingress, Db]) -> None:
    first, second, db = two_ingresses
    target_key, target_id = _poweruser(db, "Target")
    wrong = {"Authorization": f"pwrusr:{target_id}:{WRONG_SECRET}"}
    for _ in range(3):
        assert first.client.post("/svc_poweruser/whoami", headers=wrong, json={}).status_code == 401
    deadline = time.monotonic() + 20
    while _stored_failures(db, target_id) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)  # the first server sends its counts every 20 ms
    # Alone, the second server would answer 401 LIMIT times; knowing the first's 3 it refuses within its
    # quantum of unconfirmed failures (4), after its first flush shows 3 + its own.
    refused_at_second = 0
    for _ in range(3 * LIMIT):
        answer = second.client.post("/svc_poweruser/whoami", headers=wrong, json={})
        if answer.status_code != 401:
            break
        refused_at_second += 1
    _assert_locked_api(answer)
    assert refused_at_second <= FAILURE_MIN_QUANTUM < LIMIT
    # Both servers now refuse even the right key.
    for server in (second, first):
        answer = server.client.post("/svc_poweruser/whoami", headers={"Authorization": target_key}, json={})
        while answer.status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.01)
            answer = server.client.post(
                "/svc_poweruser/whoami", headers={"Authorization": target_key}, json={}
            )
        _assert_locked_api(answer)
