"""The deliveries view in Chromium against a real stack: the time range and body text filters, kept in the
URL while paging, an API refusal shown as the API words it, and the inspector's every attempt."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from ingress.console import webhooks as console_webhooks
from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import WEBHOOKS, settled, tool_for, trigger
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]


def _retrying_webhook(client: httpx.Client, poweruser_key: str, tool_id: str) -> tuple[str, str]:
    config: dict[str, Any] = {
        "name": "shop orders",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool_id},
        "executionSettings": {"timeoutSeconds": 5, "maxRetries": 2, "retryDelaySeconds": 0},
    }
    answer = client.post(
        f"{WEBHOOKS}/create", headers={"Authorization": poweruser_key}, json={"webhookConfig": config}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["webhook"]["id"], answer.json()["apiKey"]


def _attempts_of(entries: list[dict[str, Any]], execution_id: str) -> list[dict[str, Any]]:
    return sorted(
        (entry for entry in entries if entry["executionId"] == execution_id), key=lambda e: e["attemptNumber"]
    )


def test_filters_by_time_range_and_body_text_and_the_inspector_shows_every_attempt(
    ingress: Ingress,
    ingress_db: Db,
    worker: Worker,
    handler: RecordingHandler,
    browser: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(console_webhooks, "PAGE_SIZE", 1)  # two rows are two pages
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, key = _retrying_webhook(ingress.client, company.poweruser_key, tool_id)
    alpha = trigger(ingress.client, webhook_id, key, {"order": "ord-alpha"})
    settled(ingress.client, company.poweruser_key, webhook_id, 1)
    handler.fail_first["*"] = 1  # set before the trigger: the first attempt cannot get past it
    beta = trigger(ingress.client, webhook_id, key, {"order": "ord-beta"})
    entries = settled(ingress.client, company.poweruser_key, webhook_id, 3)
    handler.fail_first["*"] = 0
    gamma = trigger(ingress.client, webhook_id, key, {"order": "ord-gamma"})
    entries = settled(ingress.client, company.poweruser_key, webhook_id, 4)
    first_beta, second_beta = _attempts_of(entries, beta)
    assert (first_beta["status"], second_beta["status"]) == ("FAILED", "SUCCESS")
    (gamma_entry,) = _attempts_of(entries, gamma)

    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.wait_for_url("**/console/webhooks")
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}")

    # Beta's two attempts are the entries queued from its first attempt until before gamma.
    page.locator("#history-from").fill(f"{first_beta['queuedAt']}Z")
    page.locator("#history-to").fill(f"{gamma_entry['queuedAt']}Z")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**from=*")
    assert page.locator("h2", has_text="Deliveries").inner_text() == "Deliveries (2)"
    rows = page.locator("table.deliveries tbody tr")
    assert rows.count() == 1 and beta in rows.first.inner_text() and "FAILED" not in rows.first.inner_text()
    shot(page, "deliveries-filtered")
    page.locator("nav.pages").get_by_role("link", name="2").click()
    page.wait_for_url("**page=1*")
    kept = parse_qs(urlparse(page.url).query)
    assert kept["from"] == [f"{first_beta['queuedAt']}Z"] and kept["to"] == [f"{gamma_entry['queuedAt']}Z"]
    assert page.locator("#history-from").input_value() == f"{first_beta['queuedAt']}Z"
    assert beta in rows.first.inner_text() and "FAILED" in rows.first.inner_text()

    # A body text: a plain substring of the stored body.
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}")
    page.get_by_label("Body contains", exact=True).fill('"ord-gamma"')
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**body=*")
    assert page.locator("h2", has_text="Deliveries").inner_text() == "Deliveries (1)"
    assert gamma in rows.first.inner_text()
    page.get_by_label("Body contains", exact=True).fill("ord-")
    page.locator("#status").select_option("SUCCESS")
    page.get_by_role("button", name="Filter").click()
    assert page.locator("h2", has_text="Deliveries").inner_text() == "Deliveries (3)"
    page.get_by_label("Body contains", exact=True).fill("no such text")
    page.get_by_role("button", name="Filter").click()
    assert "No deliveries match these filters" in rows.first.inner_text()
    assert alpha not in page.content()

    # A time without its offset: the API's refusal, in its words.
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}?from=2026-12-01T00:00:00")
    assert "from: Input should have timezone info" in page.get_by_role("alert").first.inner_text()

    # The inspector: every attempt, first attempt first, each with its answer, error and trace id.
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/deliveries/{beta}")
    assert page.locator("#delivery-status").inner_text() == "SUCCESS"
    attempts = page.locator("#delivery-attempts tbody tr")
    assert attempts.count() == 2
    first, second = attempts.nth(0).inner_text(), attempts.nth(1).inner_text()
    assert first.startswith("1") and "FAILED" in first and "HTTP 503" in first and "try later" in first
    assert second.startswith("2") and "SUCCESS" in second and "handled" in second
    trace_id = first_beta["executionDetails"]["traceId"]
    assert trace_id and trace_id in first and trace_id in second
    shot(page, "inspector-attempts")
    watched.clean()
