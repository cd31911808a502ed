"""`svc admin create-version` and `set-version-state`: the JSON they print, what they store, refusals."""

from pathlib import Path

import pytest

from schemas.settings import Settings
from schemas.versions import VersionState
from sinks.db import resources
from sinks.db.engine import make_engine, make_sessions
from tests.fixtures.processes import admin, run_svc_here, svc_env

pytestmark = pytest.mark.integration


def _tool(env: dict[str, str]) -> tuple[str, str]:
    company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=env, here=True)
    tool = admin(
        "create-resource",
        "--company-id",
        company["companyId"],
        "--type",
        "TOOL",
        "--name",
        "lookup",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        env=env,
        here=True,
    )
    return company["companyId"], tool["resourceId"]


def _stored(tmp_path: Path, env: dict[str, str], company_id: str, tool_id: str) -> list[tuple[int, str, str]]:
    url = Settings(data_dir=tmp_path / "data", database_url=env.get("SVC_DATABASE_URL")).resolved_database_url
    engine = make_engine(url)
    try:
        with make_sessions(engine)() as session:
            versions = resources.versions_of(session, company_id, tool_id)
    finally:
        engine.dispose()
    return [(version.number, version.state.value, version.endpoint) for version in versions]


def test_versions_are_numbered_in_turn_and_change_state(tmp_path: Path) -> None:
    env = svc_env(tmp_path / "data")
    company_id, tool_id = _tool(env)
    draft = admin(
        "create-version", "--resource-id", tool_id, "--endpoint", "http://127.0.0.1:9/v2", env=env, here=True
    )
    assert draft == {"resourceId": tool_id, "versionNumber": 2, "state": "DRAFT"}
    published = admin(
        "create-version",
        "--resource-id",
        tool_id,
        "--endpoint",
        "kafka://tool-v3",
        "--state",
        "PUBLISHED",
        env=env,
        here=True,
    )
    assert published == {"resourceId": tool_id, "versionNumber": 3, "state": "PUBLISHED"}
    archived = admin(
        "set-version-state",
        "--resource-id",
        tool_id,
        "--version",
        "3",
        "--state",
        "ARCHIVED",
        env=env,
        here=True,
    )
    assert archived == {"resourceId": tool_id, "versionNumber": 3, "state": "ARCHIVED"}
    assert _stored(tmp_path, env, company_id, tool_id) == [
        (1, VersionState.PUBLISHED.value, "http://127.0.0.1:9/v1"),  # create-resource's version
        (2, VersionState.DRAFT.value, "http://127.0.0.1:9/v2"),
        (3, VersionState.ARCHIVED.value, "kafka://tool-v3"),
    ]


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (
            ("create-version", "--resource-id", "nope", "--endpoint", "http://x/y"),
            1,
            "resource nope not found",
        ),
        (("create-version", "--resource-id", "{tool}", "--endpoint", "ftp://x"), 2, "endpoint must be"),
        (
            ("create-version", "--resource-id", "{tool}", "--endpoint", "http://x/y", "--state", "LIVE"),
            2,
            "invalid choice",
        ),
        (
            ("set-version-state", "--resource-id", "{tool}", "--version", "9", "--state", "DRAFT"),
            1,
            "no version 9",
        ),
        (
            ("set-version-state", "--resource-id", "nope", "--version", "1", "--state", "DRAFT"),
            1,
            "not found",
        ),
        (
            ("set-version-state", "--resource-id", "{tool}", "--version", "0", "--state", "DRAFT"),
            2,
            "greater than or equal to 1",
        ),
        (("set-version-state", "--resource-id", "{tool}", "--state", "DRAFT"), 2, "--version"),
    ],
)
def test_refusals_go_to_stderr_with_a_non_zero_exit(
    tmp_path: Path, args: tuple[str, ...], status: int, message: str
) -> None:
    env = svc_env(tmp_path / "data")
    _, tool_id = _tool(env)
    done = run_svc_here("admin", *(arg.replace("{tool}", tool_id) for arg in args), env=env)
    assert (done.returncode, done.stdout) == (status, "")
    assert message in done.stderr
