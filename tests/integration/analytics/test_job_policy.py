"""A job's output is read under the reader's own current grant, never the runner's (tenant isolation).

A member whose grant on ``sales`` shows only customer bob's rows and hides ``amount`` must not read an
admin's job over every customer and the amount column, through any call that serves the job's output:
/job-status, /job-results, /job-download-url, the download link, and the SQL text in /jobs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas.settings import Settings
from sinks.db import tenancy
from sinks.db.models import Job
from tests.fixtures import module_stack
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

SALES = {
    "sqlName": "sales",
    "name": "Sales",
    "columns": [
        {"name": "sale_id", "type": "LONG"},
        {"name": "customer", "type": "STRING"},
        {"name": "amount", "type": "DECIMAL(10,2)"},
        {"name": "note", "type": "STRING", "masked": True},
    ],
}
ROWS = [
    {"sale_id": 1, "customer": "alice", "amount": "900.00", "note": "vip"},
    {"sale_id": 2, "customer": "bob", "amount": "5.00", "note": "n2"},
    {"sale_id": 3, "customer": "carol", "amount": "77.70", "note": "n3"},
    {"sale_id": 4, "customer": "bob", "amount": "6.00", "note": None},
]
BOB_ONLY = {"rowFilter": "customer = 'bob'", "hiddenColumns": ["amount"]}
NARROWER_HINT = (
    "Run the query yourself: your grant on table sales is narrower than the grant this job ran with"
)


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


@pytest.fixture
def sales(tables_world: Tables, worker: Worker) -> str:
    table_id = tables_world.create(SALES)
    answer = tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    assert answer.status_code == 200, answer.text
    tables_world.wait_rows(table_id, len(ROWS))
    return table_id


def grant(world: Tables, table_id: str, user_id: str, **extra: Any) -> None:
    answer = world.admin("grant", {"tableId": table_id, "userId": user_id, "level": "READ", **extra})
    assert answer.status_code == 200, answer.text


def run(world: Tables, table_id: str, sql: str, key: str | None = None) -> str:
    answer = world.analytics("query", table_id, {"sql": sql, "waitMs": 20_000}, key)
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"] == "SUCCEEDED", answer.json()
    return str(answer.json()["jobId"])


def second_member(world: Tables) -> tuple[str, str]:
    with world.db.sessions.begin() as session:
        made = tenancy.create_user(session, world.company_id, "second@acme.test")
    return made.user_id, made.client_api_key


def refused(answer: httpx.Response) -> None:
    assert answer.status_code == 403, answer.text
    body = answer.json()
    assert body["errorCode"] == "FORBIDDEN" and body["hint"] == NARROWER_HINT, body
    # Ids are random hex: one may hold "900" by chance (the message names the job).
    text = re.sub(r"[0-9a-f]{32}", "<id>", answer.text)
    assert "alice" not in text and "900" not in text


def output_calls(world: Tables, table_id: str, job_id: str, key: str) -> list[httpx.Response]:
    return [
        world.analytics("job-status", table_id, {"jobId": job_id}, key),
        world.analytics("job-results", table_id, {"jobId": job_id}, key),
        world.analytics(
            "job-results", table_id, {"jobId": job_id, "revealRow": 0, "revealColumn": "note"}, key
        ),
    ]


def listed(world: Tables, table_id: str, job_id: str, key: str) -> dict[str, Any]:
    jobs = world.analytics("jobs", table_id, {"kind": "QUERY"}, key).json()["jobs"]
    return next(j for j in jobs if j["jobId"] == job_id)


def test_a_narrower_grant_cannot_read_an_admins_job(tables_world: Tables, sales: str) -> None:
    sql = "SELECT customer, amount, note FROM sales WHERE amount > 50 ORDER BY sale_id"
    job_id = run(tables_world, sales, sql)
    grant(tables_world, sales, tables_world.member_id, **BOB_ONLY)
    hostile = tables_world.member_client
    for answer in output_calls(tables_world, sales, job_id, hostile):
        refused(answer)
    entry = listed(tables_world, sales, job_id, hostile)
    assert entry["sql"] is None and entry["resultRowCount"] is None
    download = tables_world.analytics("job-download-url", sales, {"jobId": job_id}, hostile)
    assert download.status_code == 403 and download.json()["errorCode"] == "FORBIDDEN"
    # The admin's own reads are untouched, and the member's own query sees only what the grant shows.
    page = tables_world.analytics("job-results", sales, {"jobId": job_id}).json()
    assert [r["customer"] for r in page["rows"]] == ["alice", "carol"]
    assert listed(tables_world, sales, job_id, tables_world.admin_client)["sql"] == sql
    mine = run(tables_world, sales, "SELECT * FROM sales ORDER BY sale_id", hostile)
    rows = tables_world.analytics("job-results", sales, {"jobId": mine}, hostile).json()["rows"]
    assert {r["customer"] for r in rows} == {"bob"} and all("amount" not in r for r in rows)


def test_an_equal_grant_reads_and_an_admin_reads_a_members_job(tables_world: Tables, sales: str) -> None:
    grant(tables_world, sales, tables_world.member_id, **BOB_ONLY)
    twin_id, twin_key = second_member(tables_world)
    # The same filter spelled differently is the same filter.
    grant(tables_world, sales, twin_id, rowFilter="customer='bob'", hiddenColumns=["amount"])
    job_id = run(
        tables_world,
        sales,
        "SELECT sale_id, customer, note FROM sales ORDER BY 1",
        tables_world.member_client,
    )
    for key in (twin_key, tables_world.admin_client, tables_world.member_client):
        status = tables_world.analytics("job-status", sales, {"jobId": job_id}, key)
        assert status.status_code == 200 and status.json()["resultRowCount"] == 2, status.text
        page = tables_world.analytics("job-results", sales, {"jobId": job_id}, key)
        assert page.status_code == 200, page.text
        assert [r["sale_id"] for r in page.json()["rows"]] == [2, 4]
        assert listed(tables_world, sales, job_id, key)["sql"].startswith("SELECT sale_id")
    # A grant that hides one more column is narrower; one with no filter and nothing hidden is broader.
    grant(tables_world, sales, twin_id, rowFilter="customer = 'bob'", hiddenColumns=["amount", "note"])
    for answer in output_calls(tables_world, sales, job_id, twin_key):
        refused(answer)
    grant(tables_world, sales, twin_id)
    assert tables_world.analytics("job-results", sales, {"jobId": job_id}, twin_key).status_code == 200


def test_a_grant_narrowed_after_the_run_takes_effect_for_the_runner(tables_world: Tables, sales: str) -> None:
    grant(tables_world, sales, tables_world.member_id)
    member = tables_world.member_client
    job_id = run(tables_world, sales, "SELECT customer, amount FROM sales ORDER BY sale_id", member)
    link = tables_world.analytics("job-download-url", sales, {"jobId": job_id}, member).json()["url"]
    assert tables_world.client.get(link).status_code == 200
    grant(tables_world, sales, tables_world.member_id, **BOB_ONLY)
    for answer in output_calls(tables_world, sales, job_id, member):
        refused(answer)
    refused(tables_world.analytics("job-download-url", sales, {"jobId": job_id}, member))
    # A link issued before the grant changed stops working too.
    stale = tables_world.client.get(link)
    assert stale.status_code == 403 and "alice" not in stale.text
    assert listed(tables_world, sales, job_id, member)["sql"] is None
    grant(tables_world, sales, tables_world.member_id)
    assert tables_world.analytics("job-results", sales, {"jobId": job_id}, member).status_code == 200
    assert tables_world.client.get(link).status_code == 200


def test_another_company_cannot_reach_the_job(tables_world: Tables, sales: str) -> None:
    job_id = run(tables_world, sales, "SELECT customer, amount FROM sales")
    hostile = tables_world.db.create_company("Hostile", "evil@hostile.test")
    own = tables_world.admin("create", SALES, hostile.poweruser_key)
    assert own.status_code == 200, own.text
    own_table = own.json()["tableId"]
    for operation in ("job-status", "job-results", "job-download-url"):
        through_theirs = tables_world.analytics(
            operation, own_table, {"jobId": job_id}, hostile.client_api_key
        )
        assert through_theirs.status_code == 404 and through_theirs.json()["errorCode"] == "NOT_FOUND"
        through_ours = tables_world.analytics(operation, sales, {"jobId": job_id}, hostile.client_api_key)
        assert through_ours.status_code == 404 and through_ours.json()["errorCode"] == "NOT_FOUND"
    jobs = tables_world.analytics("jobs", own_table, {}, hostile.client_api_key).json()["jobs"]
    assert jobs == []


def test_a_job_without_a_stored_policy_is_read_by_its_runner_and_admins_only(
    tables_world: Tables, sales: str
) -> None:
    grant(tables_world, sales, tables_world.member_id)
    twin_id, twin_key = second_member(tables_world)
    grant(tables_world, sales, twin_id)
    job_id = run(tables_world, sales, "SELECT customer FROM sales", tables_world.member_client)
    with tables_world.db.sessions.begin() as session:
        job = session.get(Job, job_id)
        assert job is not None and job.policy_json is not None
        job.policy_json = None  # as a job planned before policies were stored
    for key in (tables_world.member_client, tables_world.admin_client):
        assert tables_world.analytics("job-results", sales, {"jobId": job_id}, key).status_code == 200
    other = tables_world.analytics("job-results", sales, {"jobId": job_id}, twin_key)
    assert other.status_code == 403 and other.json()["errorCode"] == "FORBIDDEN"
    assert listed(tables_world, sales, job_id, twin_key)["sql"] is None
