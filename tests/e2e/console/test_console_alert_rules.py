"""Alert rules in the console: created (the signing secret shown once), edited to another condition with the
secret rotated, deleted after a confirmation, each through the API's rules routes; the API's refusals shown
as it words them, and a member who is not an admin refused."""

from __future__ import annotations

from typing import Any

import pytest

from sinks.db import tenancy
from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import HOSTILE, hostile_webhook, tool_for
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
RULES = "/svc_poweruser/alerts/rules"


def _rules(ingress: Ingress, key: str) -> list[dict[str, Any]]:
    answer = ingress.client.post(f"{RULES}/get-all", headers={"Authorization": key}, json={})
    assert answer.status_code == 200, answer.text
    rules: list[dict[str, Any]] = answer.json()["rules"]
    return rules


def test_create_edit_and_delete_an_alert_rule(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    with ingress_db.sessions.begin() as session:
        member = tenancy.create_user(session, company.company_id, "member@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, _key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/alerts")
    page.get_by_role("link", name="New rule").click()
    page.wait_for_url("**/console/alerts/rules/new")
    name = f"orders failing {HOSTILE}"
    page.get_by_label("Name").fill(name)
    page.get_by_label("Condition").select_option("WEBHOOK_FAILURES")
    page.get_by_label("Subject id").fill(webhook_id)
    page.get_by_label("Failures (count)").fill("")
    page.get_by_role("button", name="Create rule").click()
    assert "count" in page.get_by_role("alert").inner_text()  # the API's own words
    watched.refused(400)
    assert _rules(ingress, company.poweruser_key) == []

    page.get_by_label("Failures (count)").fill("3")
    page.get_by_label("Within minutes").fill("10")
    page.get_by_label("Notify (handler id)").fill(tool_id)
    page.get_by_role("button", name="Create rule").click()
    assert page.locator("h1").inner_text() == f"Alert rule created: {name}"
    secret = page.get_by_label("Signing secret").input_value()
    assert secret.startswith("whsec_")
    [rule] = _rules(ingress, company.poweruser_key)
    assert rule["condition"] == {
        "type": "WEBHOOK_FAILURES",
        "webhookId": webhook_id,
        "count": 3,
        "withinMinutes": 10,
    }
    assert rule["notify"] == tool_id and rule["enabled"] and rule["name"] == name

    page.get_by_role("link", name="Back to alerts").click()
    page.get_by_role("link", name=f"Edit rule {name}").click()
    assert page.get_by_label("Subject id").input_value() == webhook_id
    assert page.get_by_label("Enabled").is_checked()
    shot(page, "alert-rule")
    page.get_by_label("Condition").select_option("CIRCUIT_OPEN")
    page.get_by_label("Subject id").fill(tool_id)
    page.get_by_label("Open for seconds").fill("60")
    page.get_by_label("Notify (handler id)").fill("")
    page.get_by_label("Enabled").uncheck()
    page.get_by_label("Rotate the signing secret").check()
    page.get_by_role("button", name="Save").click()
    rotated = page.get_by_label("Signing secret").input_value()
    assert rotated.startswith("whsec_") and rotated != secret
    [rule] = _rules(ingress, company.poweruser_key)
    assert rule["condition"] == {"type": "CIRCUIT_OPEN", "resourceId": tool_id, "forSeconds": 60}
    assert rule["notify"] is None and not rule["enabled"]

    page.get_by_role("link", name="Edit the rule").click()
    assert page.get_by_label("Open for seconds").input_value() == "60"
    assert not page.get_by_label("Enabled").is_checked()
    page.get_by_role("button", name="Delete rule").click()
    assert "deleted with it" in page.locator("main").inner_text()
    assert _rules(ingress, company.poweruser_key) != []
    page.get_by_role("button", name=f"Delete rule {name}").click()
    page.wait_for_url("**/console/alerts")
    assert _rules(ingress, company.poweruser_key) == []
    assert "No rules." in page.locator("table.rules").inner_text()
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, ingress.base_url, member.poweruser_key)
    page.goto(f"{ingress.base_url}/console/alerts/rules/new")
    page.get_by_label("Name").fill("mine")
    page.get_by_role("button", name="Create rule").click()
    assert page.get_by_role("alert").is_visible()
    watched.refused(403)
    assert _rules(ingress, company.poweruser_key) == []
    watched.clean()
