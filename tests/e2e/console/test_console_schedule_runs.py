"""A schedule's own page in the console: run it now and see the run end SUCCEEDED through the worker, pause
it until a time in its zone, then resume it; at a phone's width, by keyboard."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import tool_for
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
EVENTS = "/clients/scheduled-events"


def test_run_now_pause_until_and_resume(
    ingress: Ingress, ingress_db: Db, worker: Worker, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    created = ingress.client.post(
        f"{EVENTS}/create",
        headers={"Authorization": company.client_api_key},
        json={
            "eventName": "Nightly export",
            "scheduleSpec": {
                "pattern": "CRON",
                "cron": {"expression": "0 3 * * ? *", "timezone": "Europe/Paris"},
            },
            "actionType": "INVOKE_TOOL",
            "toolConfig": {"toolExecutionRequest": {"toolId": tool_id}},
        },
    )
    assert created.status_code == 200, created.text

    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/schedules")
    page.get_by_role("link", name="Nightly export").click()
    assert page.locator("h1").inner_text() == "Nightly export"
    assert page.locator("table.runs tbody").inner_text().strip() == "No runs."

    page.get_by_role("button", name="Run now").click()
    runs = page.locator("table.runs tbody tr")
    assert "RUN_NOW" in runs.first.inner_text()
    deadline = time.monotonic() + 60
    while "SUCCEEDED" not in runs.first.inner_text() and time.monotonic() < deadline:
        page.wait_for_timeout(500)
        page.reload()
    assert runs.first.locator(".badge").inner_text() == "SUCCEEDED"

    page.get_by_label("Pause until").fill("2030-01-15T08:00")
    page.get_by_label("in zone").fill("Europe/Paris")
    page.get_by_role("button", name="Pause").click()
    paused = page.locator("#paused time")
    assert paused.get_attribute("datetime") == "2030-01-15T07:00:00.000"
    assert (page.locator("#next-fire time").get_attribute("datetime") or "") >= "2030-01-16T02:00:00"
    shot(page, "schedule-runs")

    page.get_by_role("button", name="Resume").click()
    assert page.locator("#paused").count() == 0
    assert (page.locator("#next-fire time").get_attribute("datetime") or "") < "2030"
    watched.clean()


def test_a_refused_pause_shows_the_api_error_at_a_phone_width_by_keyboard(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    created = ingress.client.post(
        f"{EVENTS}/create",
        headers={"Authorization": company.client_api_key},
        json={
            "eventName": "Hourly",
            "scheduleSpec": {"pattern": "EVERY", "every": {"value": 1, "unit": "HOURS"}},
            "actionType": "INVOKE_TOOL",
            "toolConfig": {"toolExecutionRequest": {"toolId": tool_id}},
        },
    )
    assert created.status_code == 200, created.text
    event_id = created.json()["eventId"]
    watched = watched_page(browser, width=390, height=844)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/schedules/{event_id}")
    page.get_by_label("Pause until").focus()
    page.keyboard.type("2001-01-01T00:00")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "future" in page.get_by_role("alert").inner_text()
    assert page.locator("#paused").count() == 0
    watched.refused(400)
    page.get_by_label("in zone").fill("Mars/Olympus")
    page.get_by_label("Pause until").fill("2030-01-01T00:00")
    page.get_by_role("button", name="Pause").click()
    assert "unknown time zone" in page.get_by_role("alert").inner_text()
    watched.refused(400)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    watched.clean()
