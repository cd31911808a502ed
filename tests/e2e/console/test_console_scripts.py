"""Editing a webhook's scripts in the console: a validation script that refuses bodies without ``id`` typed,
tried on a sample (its refusal shown), a transform script's compile and runtime errors shown with their
line as the API answers them, both saved through /update; a trigger without ``id`` is then refused with
the script's own message, and one with it is queued."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import hostile_webhook, tool_for, trigger
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
VALIDATION = """const event = JSON.parse(body);
if (!('id' in event)) {
  return {valid: false, message: 'Missing id.'};
}
return true;"""
BROKEN = "const event = JSON.parse(payload);\nreturn {id: };"
THROWING = "const event = JSON.parse(payload);\nthrow new Error('no order in ' + event.id);"
TRANSFORM = "const event = JSON.parse(payload);\nreturn {orderId: event.id, total: event.order.total};"


def _test(page: Any) -> None:
    page.get_by_role("button", name="Test transform").click()


def test_a_validation_script_typed_tested_and_saved_refuses_a_trigger_without_id(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/edit")
    assert page.get_by_label("Transform type").input_value() == "JSONPATH"
    assert page.get_by_label("Validation script").input_value() == ""

    page.get_by_label("Validate each delivery (the script below)").check()
    page.get_by_label("Validation script").fill(VALIDATION)
    page.get_by_label("Sample body").fill('{"order": {"id": 7, "total": 3}}')
    _test(page)
    assert page.get_by_role("alert").inner_text() == "Refused by the validation script: Missing id."
    assert page.get_by_label("Validation script").input_value() == VALIDATION
    assert page.get_by_label("Validate each delivery (the script below)").is_checked()

    page.get_by_label("Transform type").select_option("SVC_SCRIPT")
    page.get_by_label("JSONPath mappings").fill("")
    page.get_by_label("Transform script (SVC_SCRIPT)").fill(BROKEN)
    page.get_by_label("Sample body").fill('{"id": "A-1", "order": {"total": 3}}')
    _test(page)
    compile_error = page.get_by_role("alert").inner_text()
    assert compile_error.startswith(
        "webhookConfig.payloadTransformConfig.transformScript: Script does not compile"
    )
    assert compile_error.endswith("(line 2)")
    watched.refused(400)
    page.get_by_label("Transform script (SVC_SCRIPT)").fill(THROWING)
    _test(page)
    runtime_error = page.get_by_role("alert").inner_text()
    assert runtime_error.startswith("Transform failed:") and "no order in A-1" in runtime_error
    assert "line 2" in runtime_error

    page.get_by_label("Transform script (SVC_SCRIPT)").fill(TRANSFORM)
    _test(page)
    variables = page.get_by_role("table", name="Variables")
    assert (
        variables.get_by_role("row").filter(has_text="orderId").get_by_role("cell").nth(1).inner_text()
        == "A-1"
    )
    assert (
        variables.get_by_role("row").filter(has_text="total").get_by_role("cell").nth(1).inner_text() == "3"
    )
    shot(page, "webhook-scripts")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**/console/webhooks/{webhook_id}")

    page.get_by_role("link", name="Edit").click()
    assert page.get_by_label("Transform type").input_value() == "SVC_SCRIPT"
    assert page.get_by_label("Transform script (SVC_SCRIPT)").input_value() == TRANSFORM
    assert page.get_by_label("Validation script").input_value() == VALIDATION
    assert page.get_by_label("Validate each delivery (the script below)").is_checked()

    refused = ingress.client.post(
        "/clients/custom-webhooks",
        params={"resourceId": webhook_id},
        headers={"Authorization": key},
        json={"order": {"id": 8, "total": 4}},
    )
    assert refused.status_code == 401 and refused.json() == {"error": "Missing id."}
    trigger(ingress.client, webhook_id, key, {"id": "A-2", "order": {"total": 4}})
    watched.clean()
