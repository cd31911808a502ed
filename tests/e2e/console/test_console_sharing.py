"""Sharing a webhook in the console: an admin shares it with a member at READ (an unknown user first, refused
as the API words it) and sees the member listed as shared directly; the member sees it in the list and is
refused an edit and a share by the API (and is not shown who else it is shared with), then the admin makes it
PRIVATE again and removes the member, who no longer sees it."""

from __future__ import annotations

from typing import Any

import pytest

from sinks.db import tenancy
from tests.e2e.console.browser import shot, watched_page
from tests.e2e.console.test_console_webhooks import sign_in
from tests.e2e.console.world import hostile_webhook, tool_for
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.served]
MEMBER = "member@acme.test"


def _listed(page: Any, base_url: str, webhook_id: str) -> int:
    page.goto(f"{base_url}/console/webhooks")
    return int(page.locator(f'a[href="/console/webhooks/{webhook_id}"]').count())


def _sign_out(page: Any) -> None:
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Poweruser key").wait_for()


def test_an_admin_shares_a_webhook_with_a_member_at_read_then_makes_it_private(
    ingress: Ingress, ingress_db: Db, handler: RecordingHandler, browser: Any
) -> None:
    company = ingress_db.create_company("Acme", "admin@acme.test")
    with ingress_db.sessions.begin() as session:
        member = tenancy.create_user(session, company.company_id, MEMBER)
    tool_id = tool_for(ingress_db, company.company_id, company.user_id, handler)
    webhook_id, _key = hostile_webhook(ingress.client, company.poweruser_key, tool_id)
    watched = watched_page(browser)
    page = watched.page

    sign_in(page, ingress.base_url, member.poweruser_key)
    assert _listed(page, ingress.base_url, webhook_id) == 0
    _sign_out(page)

    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/edit")
    page.get_by_role("link", name="Share").click()
    assert page.locator("#sharing-level").inner_text() == "PRIVATE"
    assert page.locator("#your-access").inner_text() == "ADMIN"
    assert page.locator("#direct-shares-none").is_visible()
    page.get_by_label("Sharing level").select_option("SPECIFIC_MEMBER")
    page.get_by_label("Members to add").fill("nobody@acme.test READ")
    page.get_by_role("button", name="Share").click()
    assert page.get_by_role("alert").inner_text() == "User not found in your company: nobody@acme.test"
    assert page.get_by_label("Members to add").input_value() == "nobody@acme.test READ"
    watched.refused(400)
    page.get_by_label("Members to add").fill(f"{MEMBER} READ")
    page.get_by_role("button", name="Share").click()
    assert page.get_by_role("status").inner_text() == "Sharing saved."
    assert page.locator("#sharing-level").inner_text() == "SPECIFIC_MEMBER"
    assert page.locator("#direct-shares tbody tr").all_inner_texts() == [f"{MEMBER}\tREAD"]
    shot(page, "webhook-share")
    _sign_out(page)

    sign_in(page, ingress.base_url, member.poweruser_key)
    assert _listed(page, ingress.base_url, webhook_id) == 1
    page.locator(f'a[href="/console/webhooks/{webhook_id}"]').click()
    page.get_by_role("link", name="Edit").click()
    assert "Shared: SPECIFIC_MEMBER; your access: READ" in page.locator("main").inner_text()
    page.get_by_label("Name").fill("renamed by a reader")
    page.get_by_role("button", name="Save").click()
    assert page.get_by_role("alert").inner_text() == "WRITE access is required to update this webhook"
    watched.refused(403)
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/share")
    assert page.locator("#your-access").inner_text() == "READ"
    assert "Only an admin of this webhook sees who it is shared with." in page.locator("main").inner_text()
    page.get_by_label("Sharing level").select_option("COMPANY")
    page.get_by_label("Company access (COMPANY)").select_option("ADMIN")
    page.get_by_role("button", name="Share").click()
    assert page.get_by_role("alert").inner_text() == "Only admins can share this webhook"
    watched.refused(403)
    _sign_out(page)

    sign_in(page, ingress.base_url, company.poweruser_key)
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/share")
    page.get_by_label("Sharing level").select_option("PRIVATE")
    page.get_by_label("Members to remove").fill(MEMBER)
    page.get_by_role("button", name="Share").click()
    assert page.get_by_role("status").inner_text() == "Sharing saved."
    assert page.locator("#sharing-level").inner_text() == "PRIVATE"
    assert page.locator("#direct-shares-none").is_visible()
    assert not page.locator("main").inner_text().count("renamed by a reader")
    _sign_out(page)

    sign_in(page, ingress.base_url, member.poweruser_key)
    assert _listed(page, ingress.base_url, webhook_id) == 0
    page.goto(f"{ingress.base_url}/console/webhooks/{webhook_id}/share")
    assert page.get_by_role("alert").inner_text() == "Webhook not found"
    watched.refused(401)
    watched.clean()
