import json
from pathlib import Path

import pytest

from tests.fixtures.processes import admin, run_svc_here, svc_env

pytestmark = pytest.mark.integration

# The first test runs each command as its own `python -m svc` process; the others call the same `main` in
# this process (a new interpreter costs about two seconds of CPU to import what the command needs).


def test_the_admin_contract(tmp_path: Path) -> None:
    env = svc_env(tmp_path / "data")
    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=env)
    assert set(company) == {"companyId", "userId", "clientApiKey", "poweruserKey"}
    assert company["poweruserKey"].startswith("pwrusr:")
    user = admin("create-user", "--company-id", company["companyId"], "--email", "dev@acme.test", env=env)
    assert set(user) == {"userId", "clientApiKey", "poweruserKey"}
    tool = admin(
        "create-resource",
        "--company-id",
        company["companyId"],
        "--type",
        "TOOL",
        "--name",
        "lookup",
        "--endpoint",
        "http://127.0.0.1:9/run",
        env=env,
    )
    assert set(tool) == {"resourceId"}
    granted = admin(
        "grant", "--user-id", user["userId"], "--resource-id", tool["resourceId"], "--level", "WRITE", env=env
    )
    assert granted == {"granted": True}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("create-user", "--company-id", "0" * 32, "--email", "a@b.test"), "company 000"),
        (("create-company", "--name", "Acme", "--admin-email", "nope"), "invalid email"),
        (
            (
                "create-resource",
                "--company-id",
                "x",
                "--type",
                "TOOL",
                "--name",
                "t",
                "--endpoint",
                "ftp://x",
            ),
            "endpoint must be",
        ),
        (("grant", "--user-id", "u", "--resource-id", "r", "--level", "READ"), "user u not found"),
        (("grant", "--user-id", "u", "--resource-id", "r", "--level", "OWNER"), "invalid choice"),
        (("create-company", "--name", "Acme"), "--admin-email"),
    ],
)
def test_errors_go_to_stderr_with_a_non_zero_exit(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    done = run_svc_here("admin", *args, env=svc_env(tmp_path / "data"))
    assert done.returncode != 0
    assert done.stdout == ""
    assert message in done.stderr


def test_duplicate_user_is_refused(tmp_path: Path) -> None:
    env = svc_env(tmp_path / "data")
    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=env, here=True)
    done = run_svc_here(
        "admin", "create-user", "--company-id", company["companyId"], "--email", "BOSS@acme.test", env=env
    )
    assert done.returncode == 1
    assert "already exists" in done.stderr


def test_create_table_and_grant_on_it(tmp_path: Path) -> None:
    env = svc_env(tmp_path / "data")
    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=env, here=True)
    user = admin(
        "create-user", "--company-id", company["companyId"], "--email", "dev@acme.test", env=env, here=True
    )
    spec = tmp_path / "orders.json"
    spec.write_text(
        json.dumps({"sqlName": "orders", "name": "Orders", "columns": [{"name": "id", "type": "LONG"}]})
    )
    created = admin(
        "create-table", "--company-id", company["companyId"], "--spec", str(spec), env=env, here=True
    )
    assert set(created) == {"tableId"}
    granted = admin(
        "grant",
        "--user-id",
        user["userId"],
        "--resource-id",
        created["tableId"],
        "--level",
        "READ",
        env=env,
        here=True,
    )
    assert granted == {"granted": True}
    refused = run_svc_here(
        "admin",
        "grant",
        "--user-id",
        user["userId"],
        "--resource-id",
        created["tableId"],
        "--level",
        "ADMIN",
        env=env,
    )
    assert refused.returncode != 0
    assert "READ or WRITE" in refused.stderr
    again = run_svc_here(
        "admin", "create-table", "--company-id", company["companyId"], "--spec", str(spec), env=env
    )
    assert again.returncode == 1
    assert "already used" in again.stderr
    spec.write_text(
        json.dumps({"sqlName": "bad", "name": "Bad", "columns": [{"name": "id", "type": "UUID"}]})
    )
    invalid = run_svc_here(
        "admin", "create-table", "--company-id", company["companyId"], "--spec", str(spec), env=env
    )
    assert invalid.returncode == 1
    assert "unknown column type" in invalid.stderr
    missing = run_svc_here(
        "admin", "create-table", "--company-id", company["companyId"], "--spec", "/nope.json", env=env
    )
    assert missing.returncode == 2


def test_a_resource_carries_its_delivery_limits_and_update_resource_changes_them(tmp_path: Path) -> None:
    env = svc_env(tmp_path / "data")
    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=env, here=True)
    created = ("create-resource", "--company-id", company["companyId"], "--type", "TOOL", "--name", "t")
    tool = admin(
        *created, "--endpoint", "http://127.0.0.1:9/run", "--max-concurrency", "4", env=env, here=True
    )
    resource_id = tool["resourceId"]
    changed = admin(
        "update-resource", "--resource-id", resource_id, "--max-per-second", "2.5", env=env, here=True
    )
    assert changed == {"resourceId": resource_id, "maxConcurrency": 4, "maxPerSecond": 2.5}
    changed = admin(
        "update-resource",
        "--resource-id",
        resource_id,
        "--max-concurrency",
        "32",
        "--no-rate-limit",
        env=env,
        here=True,
    )
    assert changed == {"resourceId": resource_id, "maxConcurrency": 32, "maxPerSecond": None}
    default = admin(*created[:-1], "u", "--endpoint", "http://127.0.0.1:9/u", env=env, here=True)
    shown = admin("update-resource", "--resource-id", default["resourceId"], env=env, here=True)
    assert shown["maxConcurrency"] == 16 and shown["maxPerSecond"] is None
    for bad in (("--max-concurrency", "0"), ("--max-per-second", "-1")):
        done = run_svc_here("admin", "update-resource", "--resource-id", resource_id, *bad, env=env)
        assert done.returncode != 0 and "greater than" in done.stderr, done.stderr
    gone = run_svc_here(
        "admin", "update-resource", "--resource-id", "0" * 32, "--max-concurrency", "2", env=env
    )
    assert gone.returncode != 0 and "not found" in gone.stderr
