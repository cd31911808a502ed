"""A company with an admin and a member, and clients for the table administration and analytics calls."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from sinks.db import tenancy
from tests.fixtures.stack import Db, Ingress

ORDERS = {
    "sqlName": "orders",
    "name": "Orders",
    "description": "One row per order",
    "grain": "order",
    "columns": [
        {
            "name": "order_id",
            "type": "LONG",
            "nullable": False,
            "description": "Order number",
            "synonyms": ["id"],
        },
        {"name": "region", "type": "STRING"},
        {"name": "amount", "type": "DECIMAL(10,2)"},
        {"name": "placed_at", "type": "TIMESTAMPTZ"},
        {"name": "tags", "type": "STRING_LIST"},
        {"name": "email", "type": "STRING", "masked": True, "maskStrategy": "FULL"},
    ],
    "partitionSpec": [{"column": "placed_at", "transform": "MONTH"}],
    "measures": [{"name": "revenue", "sql": "sum(amount)", "description": "Total revenue"}],
}


@dataclass
class Tables:
    client: httpx.Client
    db: Db
    company_id: str
    admin_power: str
    admin_client: str
    member_id: str
    member_client: str
    member_power: str
    outsider_client: str

    def admin(self, operation: str, body: dict[str, Any], key: str | None = None) -> httpx.Response:
        return self.client.post(
            f"/svc_poweruser/analytics/tables/{operation}",
            headers={"Authorization": key or self.admin_power},
            json=body,
        )

    def analytics(
        self, operation: str, table_id: str, body: dict[str, Any], key: str | None = None
    ) -> httpx.Response:
        return self.client.post(
            f"/clients/svcdb/analytics/{operation}",
            params={"resourceId": table_id},
            headers={"Authorization": key or self.admin_client},
            json={"tableId": table_id, **body},
        )

    def create(self, spec: dict[str, Any] | None = None) -> str:
        answer = self.admin("create", spec or ORDERS)
        assert answer.status_code == 200, answer.text
        return str(answer.json()["tableId"])

    def wait_rows(self, table_id: str, count: int, timeout: float = 60) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        rows: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            answer = self.analytics("preview", table_id, {"limit": 100})
            assert answer.status_code == 200, answer.text
            rows = answer.json()["rows"]
            if len(rows) >= count:
                return rows
            time.sleep(0.2)
        raise AssertionError(f"{len(rows)} of {count} rows visible")


@pytest.fixture
def world(ingress: Ingress, ingress_db: Db) -> Tables:
    acme = ingress_db.create_company("Acme", "admin@acme.test")
    other = ingress_db.create_company("Other", "admin@other.test")
    with ingress_db.sessions.begin() as session:
        member = tenancy.create_user(session, acme.company_id, "analyst@acme.test")
    return Tables(
        client=ingress.client,
        db=ingress_db,
        company_id=acme.company_id,
        admin_power=acme.poweruser_key,
        admin_client=acme.client_api_key,
        member_id=member.user_id,
        member_client=member.client_api_key,
        member_power=member.poweruser_key,
        outsider_client=other.client_api_key,
    )
