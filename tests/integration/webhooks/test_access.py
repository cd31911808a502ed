"""Every row of the spec's access tables, for every operation, including another company's users."""

from typing import Any

import pytest

from tests.integration.webhooks.conftest import Person, World

pytestmark = pytest.mark.integration

NOT_FOUND = {"errors": ["Webhook not found"]}


def attempt(world: World, who: Person, operation: str, webhook_id: str) -> int:
    bodies: dict[str, dict[str, Any]] = {
        "get": {},
        "update": {"webhookConfig": {"name": "changed"}},
        "refresh-api-key": {},
        "get-execution-history": {},
        "share": {"level": "PRIVATE"},
        "get-shares": {},
        "delete": {},
    }
    answer = world.api.call(who, operation, {"webhookId": webhook_id, **bodies[operation]})
    if answer.status_code == 401:
        assert answer.json() == NOT_FOUND
    return answer.status_code


def share(world: World, webhook_id: str, body: dict[str, Any]) -> None:
    world.api.ok(world.owner, "share", {"webhookId": webhook_id, **body})


def direct(world: World, webhook_id: str, who: Person, level: str) -> None:
    share(
        world,
        webhook_id,
        {"level": "SPECIFIC_MEMBER", "usersToAdd": [{"userId": who.user_id, "accessLevel": level}]},
    )


# operation -> expected status for levels (none, READ, WRITE, PUBLISH, ADMIN-collaborator)
EXPECTED = {
    "get": (401, 200, 200, 200, 200),
    "get-execution-history": (401, 200, 200, 200, 200),
    "update": (401, 403, 200, 200, 200),
    "refresh-api-key": (401, 403, 403, 403, 200),
    "share": (401, 403, 403, 403, 200),
    "get-shares": (401, 403, 403, 403, 200),
    "delete": (401, 403, 403, 403, 403),
}
LEVELS = (None, "READ", "WRITE", "PUBLISH", "ADMIN")


@pytest.mark.parametrize("operation", list(EXPECTED))
@pytest.mark.parametrize("index", range(len(LEVELS)), ids=[str(level) for level in LEVELS])
def test_direct_share_levels(world: World, operation: str, index: int) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    level = LEVELS[index]
    if level is not None:
        direct(world, webhook_id, world.alice, level)
    assert attempt(world, world.alice, operation, webhook_id) == EXPECTED[operation][index]


@pytest.mark.parametrize("operation", list(EXPECTED))
@pytest.mark.parametrize("index", range(1, len(LEVELS)), ids=[str(level) for level in LEVELS[1:]])
def test_company_sharing_levels(world: World, operation: str, index: int) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    share(world, webhook_id, {"level": "COMPANY", "accessLevel": LEVELS[index]})
    assert attempt(world, world.bob, operation, webhook_id) == EXPECTED[operation][index]
    if operation == "get":
        seen = world.api.ok(world.bob, "get", {"webhookId": webhook_id})["webhook"]
        assert seen["sharingLevel"] == "COMPANY"
        assert seen["companyPermissionLevel"] == LEVELS[index]
        assert seen["userAccessLevel"] == LEVELS[index]


@pytest.mark.parametrize("operation", list(EXPECTED))
def test_owner_may_do_everything(world: World, operation: str) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    assert attempt(world, world.owner, operation, webhook_id) == 200


@pytest.mark.parametrize("operation", list(EXPECTED))
def test_company_admin_holds_admin_but_cannot_delete(world: World, operation: str) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    expected = 403 if operation == "delete" else 200
    assert attempt(world, world.admin, operation, webhook_id) == expected
    if operation == "delete":
        answer = world.api.call(world.admin, "delete", {"webhookId": webhook_id})
        assert answer.json() == {"errors": ["Only the owner can delete this webhook"]}


@pytest.mark.parametrize("operation", list(EXPECTED))
def test_another_company_sees_nothing(world: World, operation: str) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    share(world, webhook_id, {"level": "COMPANY", "accessLevel": "ADMIN"})
    assert attempt(world, world.outsider, operation, webhook_id) == 401


def test_denials_name_the_rule(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    direct(world, webhook_id, world.alice, "WRITE")
    refresh = world.api.call(world.alice, "refresh-api-key", {"webhookId": webhook_id})
    assert refresh.json() == {"errors": ["Only admins can refresh the API key"]}
    denied = world.api.call(world.alice, "share", {"webhookId": webhook_id, "level": "PRIVATE"})
    assert denied.json() == {"errors": ["Only admins can share this webhook"]}
    direct(world, webhook_id, world.bob, "READ")
    update = world.api.call(world.bob, "update", {"webhookId": webhook_id, "webhookConfig": {"name": "x"}})
    assert update.json() == {"errors": ["WRITE access is required to update this webhook"]}


def test_specific_members_get_their_own_levels(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    share(
        world,
        webhook_id,
        {
            "level": "SPECIFIC_MEMBER",
            "usersToAdd": [
                {"userEmail": "alice@acme.test", "accessLevel": "WRITE"},
                {"userId": world.bob.user_id, "userEmail": "bob@acme.test", "accessLevel": "READ"},
            ],
        },
    )
    assert (
        world.api.ok(world.alice, "get", {"webhookId": webhook_id})["webhook"]["userAccessLevel"] == "WRITE"
    )
    assert world.api.ok(world.bob, "get", {"webhookId": webhook_id})["webhook"]["userAccessLevel"] == "READ"
    share(world, webhook_id, {"level": "SPECIFIC_MEMBER", "usersToRemove": [{"userEmail": "bob@acme.test"}]})
    assert attempt(world, world.bob, "get", webhook_id) == 401
    assert attempt(world, world.alice, "get", webhook_id) == 200


def test_private_keeps_direct_shares_and_drops_the_company(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    direct(world, webhook_id, world.alice, "READ")
    share(world, webhook_id, {"level": "COMPANY", "accessLevel": "WRITE"})
    assert (
        world.api.ok(world.alice, "get", {"webhookId": webhook_id})["webhook"]["userAccessLevel"] == "WRITE"
    )
    assert attempt(world, world.bob, "get", webhook_id) == 200
    share(world, webhook_id, {"level": "PRIVATE"})
    seen = world.api.ok(world.alice, "get", {"webhookId": webhook_id})["webhook"]
    assert seen["sharingLevel"] == "PRIVATE"
    assert seen["companyPermissionLevel"] is None
    assert seen["userAccessLevel"] == "READ"
    assert attempt(world, world.bob, "get", webhook_id) == 401


def test_share_refuses_users_outside_the_company(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    for user in (
        {"userEmail": "admin@other.test", "accessLevel": "READ"},
        {"userId": world.outsider.user_id, "accessLevel": "READ"},
        {"userId": world.alice.user_id, "userEmail": "bob@acme.test", "accessLevel": "READ"},
    ):
        answer = world.api.call(
            world.owner, "share", {"webhookId": webhook_id, "level": "SPECIFIC_MEMBER", "usersToAdd": [user]}
        )
        assert answer.status_code == 400
        assert answer.json()["errors"][0].startswith("User not found in your company")
    assert attempt(world, world.outsider, "get", webhook_id) == 401
    assert world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["sharingLevel"] == "PRIVATE"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"level": "COMPANY"}, "accessLevel is required when level is COMPANY"),
        ({"level": "SPECIFIC_MEMBER"}, "usersToAdd is required when level is SPECIFIC_MEMBER"),
        ({"level": "EVERYONE"}, "level: Input should be"),
        ({"level": "SPECIFIC_MEMBER", "usersToAdd": [{"userEmail": "alice@acme.test"}]}, "needs accessLevel"),
    ],
)
def test_share_validation(world: World, body: dict[str, Any], message: str) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    answer = world.api.call(world.owner, "share", {"webhookId": webhook_id, **body})
    assert answer.status_code == 400
    assert message in answer.json()["errors"][0]
