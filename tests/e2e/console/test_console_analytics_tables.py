"""Analytics in the console: the list of tables the caller may read, each with its columns as the caller's
grant shows them, and a member without a grant who sees no table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.tables import ORDERS, new_tables_world

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]


def test_tables_list_shows_the_grants_columns_and_none_to_a_member_without_a_grant(
    ingress: Ingress, ingress_db: Db, browser: Any
) -> None:
    world = new_tables_world(ingress, ingress_db)
    orders = world.create()
    world.create({**ORDERS, "sqlName": "refunds", "name": "Refunds", "description": "One row per refund"})

    watched = watched_page(browser)
    page = watched.page
    sign_in(page, ingress.base_url, world.member_power)
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Analytics").click()
    assert page.locator("#no-tables").is_visible()
    assert page.locator("table.columns").count() == 0
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, ingress.base_url, world.admin_power)
    page.goto(f"{ingress.base_url}/console/analytics")
    assert page.get_by_role("heading", name="Tables you may read").is_visible()
    assert page.locator("article.listed-table h3 .mono").all_inner_texts() == ["orders", "refunds"]
    columns = page.get_by_role("table", name="Columns of orders")
    email = columns.get_by_role("row").filter(has=page.get_by_role("cell", name="email", exact=True))
    assert "masked" in email.inner_text()
    assert columns.get_by_role("cell", name="region", exact=True).is_visible()
    shot(page, "analytics-tables")
    page.get_by_role("link", name="Orders").click()
    page.wait_for_url(f"**/console/analytics?table={orders}")
    assert page.get_by_label("SQL").is_visible()
    page.get_by_role("button", name="Sign out").click()

    granted = world.admin(
        "grant",
        {"tableId": orders, "userId": world.member_id, "level": "READ", "hiddenColumns": ["region"]},
    )
    assert granted.status_code == 200, granted.text
    sign_in(page, ingress.base_url, world.member_power)
    page.goto(f"{ingress.base_url}/console/analytics")
    assert page.locator("article.listed-table h3 .mono").all_inner_texts() == ["orders"]
    columns = page.get_by_role("table", name="Columns of orders")
    assert columns.get_by_role("cell", name="order_id", exact=True).is_visible()
    assert columns.get_by_role("cell", name="region", exact=True).count() == 0
    assert "masked" in columns.get_by_role("row").filter(has_text="email").inner_text()
    watched.clean()
