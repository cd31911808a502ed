"""The console in Chromium against a real stack (a served ingress, a worker, a recording handler): sign-in,
the delivery history, the inspector, replay, a failed delivery's error, hostile names and bodies, sign-out."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.world import HOSTILE, hostile_webhook, settled, tool_for, trigger
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]


def sign_in(page: Any, base_url: str, key: str) -> None:
    page.goto(f"{base_url}/console")
    page.get_by_label("Poweruser key").fill(key)
    page.get_by_role("button", name="Sign in").click()


def test_deliveries_inspector_replay_and_sign_out(
    ingress: Ingress, ingress_db: Db, worker: Worker, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    good = trigger(ingress.client, webhook_id, key, {"order": {"id": 7}, "note": HOSTILE})
    handler.fail_first["*"] = 0
    bad = trigger(ingress.client, webhook_id, key, {"order": {"id": 8}})
    handler.fail_first[bad] = 99
    # The failing one is told to fail before its first attempt can reach the handler: retry it until then.
    settled(ingress.client, company.poweruser_key, webhook_id, 2)

    watched = watched_page(browser)
    page = watched.page
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)

    sign_in(page, ingress.base_url, "pwrusr:nope:wrong")
    assert page.get_by_role("alert").inner_text().strip() == "Invalid API key"

    sign_in(page, ingress.base_url, company.poweruser_key)
    page.wait_for_url("**/console/webhooks")
    shot(page, "webhooks")
    name = f"orders {HOSTILE}"
    page.get_by_role("link", name=name).click()
    assert page.locator("h1").inner_text() == name
    assert page.locator("img").count() == 0
    shot(page, "deliveries")

    page.get_by_role("link", name=good).click()
    assert page.locator("#delivery-status").inner_text() == "SUCCESS"
    assert HOSTILE.replace('"', '\\"') in page.locator("#delivery-body").inner_text()
    assert (page.locator("time").first.get_attribute("title") or "").endswith("UTC")
    shot(page, "inspector")

    page.get_by_role("button", name="Replay this delivery").click()
    assert page.locator("h1").inner_text() == "Replayed 1"
    replay_link = page.locator("table a").first
    replay_id = replay_link.inner_text()
    assert replay_id != good
    settled(ingress.client, company.poweruser_key, webhook_id, 3)
    replay_link.click()
    assert page.locator("#delivery-status").inner_text() == "SUCCESS"
    assert good in page.locator(".facts").inner_text()  # "Replay of"

    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}?status=FAILED")
    page.get_by_role("link", name=bad).click()
    assert page.locator("#delivery-status").inner_text() == "FAILED"
    assert "503" in page.locator("#delivery-error").inner_text()
    shot(page, "failed-delivery")

    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}")
    page.get_by_role("button", name="Count matching deliveries").click()
    assert "3 match this filter" in page.locator("#dry-run-count").inner_text()
    shot(page, "replay-dry-run")

    response = page.goto(f"{ingress.base_url}/console/webhooks")
    assert response is not None
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-request-id"]
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/console/sign-in")
    shot(page, "sign-in")
    page.goto(f"{ingress.base_url}/console/webhooks")
    assert page.url.endswith("/console/sign-in")
    assert dialogs == []
    watched.clean()
