"""A company with members of every kind, another company, and a client for the poweruser API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from schemas.admin import ResourceSpec
from sinks.db import resources, tenancy
from tests.fixtures.stack import Db, Ingress

BASE = "/svc_poweruser/custom-webhooks"


@dataclass
class Person:
    user_id: str
    email: str
    key: str


class Api:
    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def call(self, who: Person, operation: str, body: dict[str, Any]) -> httpx.Response:
        return self.client.post(f"{BASE}/{operation}", headers={"Authorization": who.key}, json=body)

    def ok(self, who: Person, operation: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.call(who, operation, body)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        assert result["errors"] == []
        return result

    def create(self, who: Person, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.ok(who, "create", {"webhookConfig": config or {"name": "orders"}})


@dataclass
class World:
    api: Api
    db: Db
    company_id: str
    owner: Person
    admin: Person
    alice: Person
    bob: Person
    outsider: Person
    tool_id: str
    agent_id: str
    foreign_tool_id: str


@pytest.fixture
def world(ingress: Ingress, ingress_db: Db) -> World:
    db = ingress_db
    acme = db.create_company("Acme", "admin@acme.test")
    other = db.create_company("Other", "admin@other.test")
    with db.sessions.begin() as session:
        members = {
            name: tenancy.create_user(session, acme.company_id, f"{name}@acme.test")
            for name in ("owner", "alice", "bob")
        }
        tool = resources.create_resource(
            session,
            acme.company_id,
            ResourceSpec(type="TOOL", name="lookup", endpoint="http://127.0.0.1:9/t"),
        )
        agent = resources.create_resource(
            session, acme.company_id, ResourceSpec(type="AGENT", name="triage", endpoint="kafka://agents")
        )
        foreign = resources.create_resource(
            session,
            other.company_id,
            ResourceSpec(type="TOOL", name="theirs", endpoint="http://127.0.0.1:9/x"),
        )
    people = {
        name: Person(user.user_id, f"{name}@acme.test", user.poweruser_key) for name, user in members.items()
    }
    return World(
        api=Api(ingress.client),
        db=db,
        company_id=acme.company_id,
        owner=people["owner"],
        admin=Person(acme.user_id, "admin@acme.test", acme.poweruser_key),
        alice=people["alice"],
        bob=people["bob"],
        outsider=Person(other.user_id, "admin@other.test", other.poweruser_key),
        tool_id=tool.resource_id,
        agent_id=agent.resource_id,
        foreign_tool_id=foreign.resource_id,
    )
