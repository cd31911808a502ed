"""``svc up`` as a user runs it: a subprocess on free ports, driven over HTTP and through the admin CLI."""

from __future__ import annotations

import signal

import httpx
import pytest

from tests.fixtures.processes import admin
from tests.fixtures.up import Up, gone

pytestmark = pytest.mark.e2e


def test_up_serves_survives_a_restart_and_stops_cleanly(up: Up) -> None:
    up.start()
    assert httpx.get(f"{up.url}/healthz").status_code == 200
    assert httpx.get(f"{up.url}/readyz").json()["checks"] == {
        "database": "ok",
        "broker": "ok",
        "storage": "ok",
    }
    children = up.children()
    assert len(children) >= 3, "broker, worker and ingress run as children"

    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=up.env)
    key = {"Authorization": company["clientApiKey"]}
    me = httpx.post(f"{up.url}/clients/whoami", headers=key, json={})
    assert me.status_code == 200 and me.json()["companyId"] == company["companyId"]
    wrong = httpx.post(f"{up.url}/clients/whoami", headers={"Authorization": "svck_" + "x" * 43}, json={})
    assert wrong.status_code == 401 and wrong.json()["errors"] == ["Invalid API key"]
    assert wrong.headers["X-Request-Id"]

    assert up.signal(signal.SIGTERM) == 0
    assert gone(children), "SIGTERM left child processes behind"

    up.start()
    again = httpx.post(f"{up.url}/clients/whoami", headers=key, json={})
    assert again.status_code == 200 and again.json()["userId"] == company["userId"]
    power = {"Authorization": company["poweruserKey"]}
    assert httpx.post(f"{up.url}/svc_poweruser/whoami", headers=power, json={}).status_code == 200
    children = up.children()
    assert up.signal(signal.SIGINT) == 0
    assert gone(children), "Ctrl-C left child processes behind"
