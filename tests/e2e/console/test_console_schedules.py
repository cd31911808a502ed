"""Schedules in the console: a monthly CRON schedule's next 10 fire times in Europe/Paris, with both of the
zone's offsets shown and the change marked, then created and listed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import tool_for
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]


def test_schedule_preview_across_a_dst_change_then_create(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, company.poweruser_key)
    page.get_by_role("link", name="Schedules").click()
    page.get_by_label("Name").fill("Monthly report")
    page.get_by_label("Cron expression").fill("0 9 1 * ? *")
    page.get_by_label("Time zone").fill("Europe/Paris")
    page.get_by_label("Tool id").fill(tool_id)
    page.get_by_role("button", name="Preview").click()
    items = page.locator("ol.preview li")
    assert items.count() == 10
    offsets = {item.locator(".offset").inner_text() for item in items.all()}
    assert offsets == {"+01:00", "+02:00"}  # ten months always cross a change of Paris's offset
    assert page.locator("ol.preview li.dst").count() >= 1
    shot(page, "schedule-preview")
    assert all(" 09:00:00" in item.locator(".mono").inner_text() for item in items.all())
    page.get_by_role("button", name="Create schedule").click()
    page.wait_for_url("**/console/schedules")
    assert page.get_by_role("cell", name="Monthly report").is_visible()
    watched.clean()
