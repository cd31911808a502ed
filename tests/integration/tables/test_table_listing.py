"""``/svc_poweruser/analytics/tables/get-all``: the tables a caller may read, with the columns the caller's
grant shows."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.stack import Ingress
from tests.fixtures.tables import ORDERS, Tables

pytestmark = pytest.mark.integration


def _listed(tables_world: Tables, key: str) -> list[dict[str, Any]]:
    answer = tables_world.admin("get-all", {}, key=key)
    assert answer.status_code == 200, answer.text
    tables: list[dict[str, Any]] = answer.json()["tables"]
    return tables


def test_a_member_lists_only_granted_tables_with_the_columns_the_grant_shows(
    tables_world: Tables, ingress: Ingress
) -> None:
    orders = tables_world.create()
    tables_world.create({**ORDERS, "sqlName": "archive", "name": "Archive"})

    as_admin = _listed(tables_world, tables_world.admin_power)
    assert [t["sqlName"] for t in as_admin] == ["archive", "orders"]
    admin_orders = as_admin[1]
    assert admin_orders["tableId"] == orders and admin_orders["level"] == "WRITE"
    assert not admin_orders["rowFiltered"]
    email = next(c for c in admin_orders["columns"] if c["name"] == "email")
    assert email == {
        "name": "email",
        "type": "STRING",
        "nullable": True,
        "description": None,
        "masked": True,
        "maskStrategy": "FULL",
        "revealable": True,
    }
    region = next(c for c in admin_orders["columns"] if c["name"] == "region")
    assert region["maskStrategy"] is None and not region["revealable"]

    assert _listed(tables_world, tables_world.member_power) == []

    granted = tables_world.admin(
        "grant",
        {
            "tableId": orders,
            "userId": tables_world.member_id,
            "level": "READ",
            "hiddenColumns": ["region"],
            "rowFilter": "amount > 1",
        },
    )
    assert granted.status_code == 200, granted.text
    [member_orders] = _listed(tables_world, tables_world.member_power)
    assert member_orders["tableId"] == orders and member_orders["level"] == "READ"
    assert member_orders["rowFiltered"]
    names = [c["name"] for c in member_orders["columns"]]
    assert names == ["order_id", "amount", "placed_at", "tags", "email"]
    email = next(c for c in member_orders["columns"] if c["name"] == "email")
    assert email["masked"] and not email["revealable"]


def test_unknown_fields_and_a_missing_key_are_refused(tables_world: Tables, ingress: Ingress) -> None:
    assert tables_world.admin("get-all", {"tableId": "x"}).status_code in (400, 422)
    assert ingress.client.post("/svc_poweruser/analytics/tables/get-all", json={}).status_code == 401
