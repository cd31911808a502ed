"""Editing a webhook in the console: its key rotated (the new one shown once, the old one refused at once),
then its name, mappings, content filter and provider signature changed and sent back through /update, a
refused filter showing the API's own message, and a delivery without the signature refused."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import hostile_webhook, tool_for, trigger
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
SECRET = "a-signing-secret-of-32-characters"
TRIGGER = "/clients/custom-webhooks"


def test_rotate_the_key_then_edit_the_filter_and_the_signature(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, old_key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}")

    page.get_by_role("button", name="Rotate key").click()
    assert page.locator("h1").inner_text().startswith("New key for")
    new_key = page.get_by_label("Webhook key").input_value()
    assert new_key and new_key != old_key
    refused = ingress.client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": old_key}, json={}
    )
    assert refused.status_code == 401
    trigger(ingress.client, webhook_id, new_key, {"order": {"id": 1}})
    page.get_by_role("link", name="Open the webhook").click()

    page.get_by_role("link", name="Edit").click()
    assert page.get_by_label("JSONPath mappings").input_value() == "orderId = $.order.id"
    page.get_by_label("Name").fill("paid orders")
    page.get_by_label("JSONPath mappings").fill("orderId = $.order.id\ntotal = $.order.total")
    page.get_by_label("Content filter (JSON)").fill('{"body": {"order": {"total": {"$regex": "x"}}}}')
    page.get_by_role("button", name="Save").click()
    assert "unknown operator $regex" in page.get_by_role("alert").inner_text()
    watched.refused(400)
    page.get_by_label("Content filter (JSON)").fill('{"body": {"order": {"total": {"$gte": 10}}}}')
    page.get_by_label("Provider signature").select_option("HMAC_SHA256")
    page.get_by_label("Signing secret").fill(SECRET)
    page.get_by_label("Signature header (HMAC_SHA256)").fill("X-Signature")
    shot(page, "webhook-edit")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**/console/webhooks/{webhook_id}")
    assert page.locator("h1").inner_text() == "paid orders"
    assert json.loads(page.locator("#webhook-filter").inner_text()) == {
        "body": {"order": {"total": {"$gte": 10}}}
    }
    signature = page.locator("#webhook-signature").inner_text()
    assert signature.startswith("HMAC_SHA256") and SECRET not in signature
    assert SECRET not in page.content()

    body = json.dumps({"order": {"id": 2, "total": 12}}).encode()
    unsigned = ingress.client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": new_key}, content=body
    )
    assert unsigned.status_code == 401
    signed = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={
            "Authorization": new_key,
            "Content-Type": "application/json",
            "X-Signature": hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest(),
        },
        content=body,
    )
    assert signed.status_code == 202, signed.text

    page.get_by_role("link", name="Edit").click()
    assert page.get_by_label("Signing secret").input_value() == ""  # the secret is never sent back
    page.get_by_label("Name").fill("paid orders, renamed")
    page.get_by_role("button", name="Save").click()  # the blank secret keeps the stored one
    page.wait_for_url(f"**/console/webhooks/{webhook_id}")
    assert page.locator("#webhook-signature").inner_text().startswith("HMAC_SHA256")
    watched.clean()
