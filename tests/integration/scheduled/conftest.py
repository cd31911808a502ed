"""A company with an admin key, a member key without grants, a tool, an agent, and another company."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from schemas.admin import ResourceSpec
from sinks.db import resources, tenancy
from tests.fixtures.stack import Db, Ingress

BASE = "/clients/scheduled-events"


@dataclass
class Scene:
    client: httpx.Client
    db: Db
    company_id: str
    admin_key: str
    member_key: str
    other_key: str
    tool_id: str
    agent_id: str
    foreign_tool_id: str

    def call(self, operation: str, body: dict[str, Any], key: str | None = None) -> httpx.Response:
        return self.client.post(
            f"{BASE}/{operation}", headers={"Authorization": key or self.admin_key}, json=body
        )

    def ok(self, operation: str, body: dict[str, Any], key: str | None = None) -> dict[str, Any]:
        answer = self.call(operation, body, key)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        assert result["errors"] == []
        return result


def tool_event(tool_id: str, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "eventName": "nightly report",
        "scheduleSpec": {
            "pattern": "CRON",
            "cron": {"expression": "0 12 * * ? *", "timezone": "Europe/Berlin"},
        },
        "actionType": "INVOKE_TOOL",
        "toolConfig": {"toolExecutionRequest": {"toolId": tool_id, "variables": {"kind": "daily"}}},
    }
    body.update(fields)
    return body


@pytest.fixture
def scene(ingress: Ingress, ingress_db: Db) -> Scene:
    acme = ingress_db.create_company("Acme", "admin@acme.test")
    other = ingress_db.create_company("Other", "admin@other.test")
    with ingress_db.sessions.begin() as session:
        member = tenancy.create_user(session, acme.company_id, "member@acme.test")
        tool = resources.create_resource(
            session,
            acme.company_id,
            ResourceSpec(type="TOOL", name="report", endpoint="http://127.0.0.1:9/t"),
        )
        agent = resources.create_resource(
            session, acme.company_id, ResourceSpec(type="AGENT", name="triage", endpoint="kafka://agents")
        )
        foreign = resources.create_resource(
            session,
            other.company_id,
            ResourceSpec(type="TOOL", name="theirs", endpoint="http://127.0.0.1:9/x"),
        )
    return Scene(
        client=ingress.client,
        db=ingress_db,
        company_id=acme.company_id,
        admin_key=acme.client_api_key,
        member_key=member.client_api_key,
        other_key=other.client_api_key,
        tool_id=tool.resource_id,
        agent_id=agent.resource_id,
        foreign_tool_id=foreign.resource_id,
    )
