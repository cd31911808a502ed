"""The live transform test on a webhook's edit page: a sample body run through the form's configuration,
unsaved, showing the variables (hostile values as text), the transform's error, or the filter's drop; the
webhook and its history unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import HOSTILE, WEBHOOKS, hostile_webhook, tool_for
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]


def test_the_edit_page_tests_the_transform_on_a_sample_body_without_saving(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, _key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/edit")

    sample = json.dumps({"order": {"id": HOSTILE, "total": 120}})
    page.get_by_label("JSONPath mappings").fill("orderId = $.order.id\ntotal = $.order.total")
    page.get_by_label("Sample body").fill(sample)
    page.get_by_role("button", name="Test transform").click()
    variables = page.get_by_role("table", name="Variables")
    order_row = variables.get_by_role("row").filter(has=page.get_by_role("cell", name="orderId", exact=True))
    assert order_row.get_by_role("cell").nth(1).inner_text() == HOSTILE
    assert (
        variables.get_by_role("row").filter(has_text="total").get_by_role("cell").nth(1).inner_text() == "120"
    )
    assert page.locator("#transform-test img").count() == 0
    # The form keeps what was typed, unsaved.
    assert (
        page.get_by_label("JSONPath mappings").input_value() == "orderId = $.order.id\ntotal = $.order.total"
    )
    assert page.get_by_label("Sample body").input_value() == sample
    shot(page, "transform-test")

    page.get_by_label("Sample body").fill('{"order": ')
    page.get_by_role("button", name="Test transform").click()
    assert "Transform failed: Request body is not valid JSON" in page.get_by_role("alert").inner_text()

    page.get_by_label("Content filter (JSON)").fill('{"body": {"order": {"total": {"$gte": 500}}}}')
    page.get_by_label("Sample body").fill(sample)
    page.get_by_role("button", name="Test transform").click()
    assert "The content filter drops this body" in page.locator("#transform-test").inner_text()

    page.get_by_label("JSONPath mappings").fill("orderId = $.order[?(@.x ==")
    page.get_by_role("button", name="Test transform").click()
    assert "jsonPathMappings" in page.get_by_role("alert").inner_text()
    watched.refused(400)

    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/edit")
    assert page.get_by_label("JSONPath mappings").input_value() == "orderId = $.order.id"
    assert page.get_by_label("Content filter (JSON)").input_value() == ""
    history = ingress.client.post(
        f"{WEBHOOKS}/get-execution-history",
        headers={"Authorization": company.poweruser_key},
        json={"webhookId": webhook_id},
    )
    assert history.json()["history"] == []
    watched.clean()
