"""Alerts and destinations in the console: refused deliveries open an alert (the leader's round run at a
moment the test chooses), seen with the destination behind it, acknowledged from the list and resolved from
its own page; the same deliveries in the webhook's charts over the last hour and day."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import hostile_webhook, settled, tool_for, trigger
from tests.fixtures.alerts import evaluate
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.tables import new_tables_world
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]


def test_an_alert_is_acknowledged_then_resolved_beside_its_destination(
    ingress: Ingress, ingress_db: Db, worker: Worker, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    handler.fail_first["*"] = 99
    handler.status_on_failure = 422  # refused: recorded FAILED at once, not retried
    rule = ingress.client.post(
        "/svc_poweruser/alerts/rules/create",
        headers={"Authorization": company.poweruser_key},
        json={
            "name": "orders refused",
            "condition": {
                "type": "WEBHOOK_FAILURES",
                "webhookId": webhook_id,
                "count": 2,
                "withinMinutes": 5,
            },
        },
    )
    assert rule.status_code == 200, rule.text
    failed = [trigger(ingress.client, webhook_id, key, {"order": {"id": n}}) for n in range(2)]
    settled(ingress.client, company.poweruser_key, webhook_id, 2)
    # The leader's round runs asyncio.run of its own: on a thread, Playwright's loop holding this one.
    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(evaluate, ingress.settings, datetime.now(UTC) + timedelta(seconds=5)).result()
    assert done.opened == 1

    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.get_by_role("link", name="Alerts").click()
    page.wait_for_url("**/console/alerts")
    destinations = page.locator("table.destinations tbody tr")
    assert destinations.count() == 1
    assert "recorder" in destinations.first.inner_text()
    assert tool_id in destinations.first.inner_text()
    row = page.locator("table.alerts tbody tr").first
    assert "orders refused" in row.inner_text()
    assert row.locator(".badge").inner_text() == "OPEN"
    assert page.locator("table.rules").get_by_role("cell", name="orders refused").is_visible()
    shot(page, "alerts")

    row.get_by_role("button", name="Acknowledge").click()
    page.wait_for_url("**/console/alerts")
    row = page.locator("table.alerts tbody tr").first
    assert row.locator(".badge").inner_text() == "ACKNOWLEDGED"
    assert row.get_by_role("button", name="Acknowledge").count() == 0

    row.get_by_role("link").first.click()
    assert page.locator("#alert-state").inner_text() == "ACKNOWLEDGED"
    assert page.locator("#alert-count").inner_text() == "2"
    items = page.locator("table.items tbody")
    assert all(items.get_by_role("link", name=execution).is_visible() for execution in failed)
    shot(page, "alert")
    page.get_by_role("button", name="Resolve").click()
    assert page.locator("#alert-state").inner_text() == "RESOLVED"
    assert page.get_by_role("button", name="Resolve").count() == 0

    items.get_by_role("link", name=failed[0]).click()
    assert page.locator("#delivery-status").inner_text() == "FAILED"

    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}")
    page.get_by_role("link", name="Charts").click()
    assert page.locator("#stats-summary").inner_text().startswith("2 attempts")
    assert page.locator("svg.chart rect.s-FAILED").count() >= 1
    assert page.locator("table.totals").get_by_role("row", name="FAILED 2").is_visible()
    assert page.locator("svg.chart circle.dot-p99").count() >= 1
    shot(page, "charts")
    page.get_by_role("link", name="Last day").click()
    assert page.locator("#stats-summary").inner_text().startswith("2 attempts")
    assert "30 min a bar" in page.locator("#stats-summary").inner_text()
    page.goto(f"{ingress.base_url}/console/alerts?state=OPEN")
    assert page.locator("table.alerts tbody").inner_text().strip() == "No alerts."
    watched.clean()


def test_a_member_who_is_not_an_admin_is_told_so(ingress: Ingress, ingress_db: Db, browser: Any) -> None:
    world = new_tables_world(ingress, ingress_db)
    watched = watched_page(browser, width=390, height=844)
    page = watched.page
    sign_in(page, ingress.base_url, world.member_power)
    page.goto(f"{ingress.base_url}/console/alerts")
    assert "admins" in page.get_by_role("alert").inner_text()
    assert page.locator("table.alerts tbody").inner_text().strip() == "No alerts."
    watched.clean()
