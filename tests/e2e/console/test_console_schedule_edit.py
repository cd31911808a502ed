"""Editing a schedule in the console: its stored next 10 fire times, then a new expression and zone previewed
(both of the zone's offsets, the change marked) before it is saved with a new action through /update; a
config that is not JSON refused with nothing saved."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import tool_for
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
EVENTS = "/clients/scheduled-events"


def test_edit_a_schedules_spec_zone_and_action_with_its_fire_times_previewed(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    other_tool = tool_for(ingress_db, company.company_id, company.user_id, handler)
    client_key = {"Authorization": company.client_api_key}
    created = ingress.client.post(
        f"{EVENTS}/create",
        headers=client_key,
        json={
            "eventName": "Daily digest",
            "scheduleSpec": {"pattern": "CRON", "cron": {"expression": "0 7 * * ? *", "timezone": "UTC"}},
            "actionType": "INVOKE_TOOL",
            "toolConfig": {"toolExecutionRequest": {"toolId": tool_id}},
        },
    )
    assert created.status_code == 200, created.text
    event_id = created.json()["eventId"]

    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/schedules/{event_id}")
    page.get_by_role("link", name="Edit").click()
    page.wait_for_url(f"**/console/schedules/{event_id}/edit")
    assert page.get_by_label("Cron expression").input_value() == "0 7 * * ? *"
    shown = json.loads(page.get_by_label("Action config (JSON)").input_value())
    assert shown["toolExecutionRequest"] == {"toolId": tool_id}
    items = page.locator("ol.preview li")
    assert items.count() == 10
    assert all(" 07:00:00" in item.locator(".mono").inner_text() for item in items.all())

    page.get_by_label("Cron expression").fill("30 8 1 * ? *")
    page.get_by_label("Time zone").fill("America/New_York")
    config = {"toolExecutionRequest": {"toolId": other_tool, "variables": {"period": "monthly"}}}
    page.get_by_label("Action config (JSON)").fill(json.dumps(config))
    page.get_by_role("button", name="Preview").click()
    assert page.locator("#fire-times h2").inner_text() == "Next 10 fire times (America/New_York)"
    items = page.locator("ol.preview li")
    assert items.count() == 10
    assert {item.locator(".offset").inner_text() for item in items.all()} == {"-05:00", "-04:00"}
    assert page.locator("ol.preview li.dst").count() >= 1
    assert all(" 08:30:00" in item.locator(".mono").inner_text() for item in items.all())
    shot(page, "schedule-edit")

    page.get_by_label("Action config (JSON)").fill("{not json")
    page.get_by_role("button", name="Save").click()
    assert "Action config is not JSON" in page.get_by_role("alert").inner_text()
    watched.refused(400)
    stored = ingress.client.post(f"{EVENTS}/get", headers=client_key, json={"scheduledEventId": event_id})
    assert stored.json()["scheduledEvent"]["scheduleSpec"]["cron"]["expression"] == "0 7 * * ? *"

    page.get_by_label("Action config (JSON)").fill(json.dumps(config))
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**/console/schedules/{event_id}")
    assert "America/New_York" in page.locator("dl.facts").inner_text()
    event = ingress.client.post(
        f"{EVENTS}/get", headers=client_key, json={"scheduledEventId": event_id}
    ).json()["scheduledEvent"]
    assert event["scheduleSpec"]["cron"] == {"expression": "30 8 1 * ? *", "timezone": "America/New_York"}
    assert event["toolConfig"]["toolExecutionRequest"]["toolId"] == other_tool
    assert event["toolConfig"]["toolExecutionRequest"]["variables"] == {"period": "monthly"}
    assert event["eventName"] == "Daily digest"
    watched.clean()
