"""Analytics in the console: a table's columns, a query's estimate and its results paged, and a member
without a grant who sees no table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.tables import new_tables_world
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
ROWS = 120


def test_query_pages_its_results_and_a_member_without_a_grant_sees_no_table(
    ingress: Ingress, ingress_db: Db, worker: Worker, browser: Any
) -> None:
    world = new_tables_world(ingress, ingress_db)
    table_id = world.create()
    rows = [
        {"order_id": n, "region": "EU", "amount": "1.00", "placed_at": "2026-11-01T10:00:00Z"}
        for n in range(ROWS)
    ]
    appended = world.analytics("append-rows", table_id, {"rows": rows})
    assert appended.status_code == 200, appended.text
    world.wait_rows(table_id, 100)

    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, world.admin_power)
    page.goto(f"{ingress.base_url}/console/analytics?table={table_id}")
    assert page.get_by_role("cell", name="order_id", exact=True).is_visible()
    page.get_by_label("SQL").fill("SELECT order_id FROM orders ORDER BY order_id")
    page.get_by_role("button", name="Estimate").click()
    assert "Estimated scan" in page.locator("#estimate").inner_text()
    shot(page, "analytics")
    page.get_by_role("button", name="Run query").click()
    page.wait_for_url("**/console/analytics/jobs/**")
    summary = page.locator("#result-summary")
    deadline_tries = 20
    while not summary.count() and deadline_tries:
        page.wait_for_timeout(500)
        page.reload()
        deadline_tries -= 1
    assert summary.inner_text().startswith(f"{ROWS} rows")
    assert "page 1 of 3" in summary.inner_text()
    shot(page, "query-results")
    page.get_by_role("navigation", name="Pages").get_by_role("link", name="2").click()
    assert "page 2 of 3" in page.locator("#result-summary").inner_text()
    assert page.locator("table.results tbody tr").first.inner_text().strip() == "50"
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, ingress.base_url, world.member_power)
    page.goto(f"{ingress.base_url}/console/analytics?table={table_id}")
    assert page.get_by_role("alert").is_visible()
    assert page.locator("table.columns").count() == 0
    watched.clean()
