"""`svc admin storage`: rows and bytes per kind of record and company, summed by the database (SQLite and
PostgreSQL alike), the object store's bytes by area and company, and the database's size; as JSON and as a
table, for every company or one."""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import insert
from sqlalchemy.orm import Session

from schemas.settings import Settings
from sinks.db.models import (
    AnalyticsTable,
    Job,
    RateCounter,
    ScheduledEvent,
    ScheduledEventRun,
    Webhook,
    WebhookDedup,
    WebhookExecution,
    WebhookPayload,
    WebhookReplay,
)
from sinks.objectstore import object_store
from tests.fixtures.processes import run_svc_here, svc_env
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BODY = '{"note":"héllo"}'  # 16 characters, 17 bytes in UTF-8: bytes are counted, not characters
HEADERS = '{"a":"b"}'  # 9 bytes


def _webhook(session: Session, company_id: str, user_id: str, tag: str, deliveries: int) -> None:
    webhook_id = f"w{tag}"
    session.execute(
        insert(Webhook).values(
            id=webhook_id, company_id=company_id, owner_id=user_id, name="orders", config_json="{}"
        )
    )
    for index in range(deliveries):
        payload_id = f"p{tag}{index}"
        session.execute(
            insert(WebhookPayload).values(
                id=payload_id,
                company_id=company_id,
                webhook_id=webhook_id,
                request_payload=BODY,
                request_headers=HEADERS,
                body_bytes=1000 if index == 0 else None,  # the first body kept by reference
            )
        )
        for attempt in (1, 2):
            session.execute(
                insert(WebhookExecution).values(
                    id=f"e{tag}{index}{attempt}",
                    execution_id=f"x{tag}{index}",
                    webhook_id=webhook_id,
                    company_id=company_id,
                    payload_id=payload_id,
                    attempt_number=attempt,
                    status="FAILED" if attempt == 1 else "SUCCESS",
                    queued_at=NOW,
                    webhook_name="orders",
                    http_method="POST",
                    transform_type="NONE",
                    transformed_variables='{"k":1}',  # 7 bytes
                    resource_response_json="ok" if attempt == 2 else None,  # 2 bytes
                )
            )
    session.execute(
        insert(WebhookDedup).values(
            webhook_id=webhook_id,
            dedup_key="key-1",
            company_id=company_id,
            execution_id=f"x{tag}0",
            seen_at=NOW,
            expires_at=NOW + timedelta(days=1),
        )
    )
    session.execute(
        insert(WebhookReplay).values(
            execution_id=f"r{tag}",
            company_id=company_id,
            webhook_id=webhook_id,
            original_execution_id=f"x{tag}0",
        )
    )


def _schedule_and_job(session: Session, company_id: str, user_id: str) -> None:
    session.execute(
        insert(ScheduledEvent).values(
            id="ev1",
            company_id=company_id,
            owner_id=user_id,
            name="nightly",
            spec_json="{}",
            action_type="WEBHOOK",
            config_json="{}",
            anchor_at=NOW,
        )
    )
    session.execute(
        insert(ScheduledEventRun).values(
            id="run1",
            event_id="ev1",
            company_id=company_id,
            scheduled_for=NOW,
            status="SUCCEEDED",
            action_type="WEBHOOK",
            queued_at=NOW,
            response_json='{"ok":true}',  # 11 bytes
        )
    )
    session.execute(
        insert(AnalyticsTable).values(
            id="t1",
            company_id=company_id,
            sql_name="orders",
            name="Orders",
            columns_json="[]",
            created_by=user_id,
        )
    )
    session.execute(
        insert(Job).values(
            id="j1",
            company_id=company_id,
            table_id="t1",
            kind="QUERY",
            state="SUCCEEDED",
            created_by=user_id,
            sql="SELECT 1",  # 8 bytes
            plan_json="{}",  # 2 bytes
            tables_json="[]",  # 2 bytes
        )
    )


@pytest.fixture
def seeded(db: Db, settings: Settings) -> tuple[str, str]:
    one, two = db.create_company("One", "a@one.test"), db.create_company("Two", "a@two.test")
    with db.sessions.begin() as session:
        _webhook(session, one.company_id, one.user_id, "a", deliveries=3)
        _webhook(session, two.company_id, two.user_id, "b", deliveries=1)
        _schedule_and_job(session, one.company_id, one.user_id)
        session.execute(
            insert(RateCounter).values(name="trigger:minute:x", window_start=1, window_end=61, hits=5)
        )
    store = object_store(settings)
    store.put_bytes(f"results/{one.company_id}/j1.parquet", b"r" * 300)
    store.put_bytes(f"uploads/{one.company_id}/u1/orders.csv", b"u" * 50)
    store.put_bytes(f"uploads/{two.company_id}/u2/orders.csv", b"u" * 70)
    store.put_bytes(f"webhook-bodies/{two.company_id}/p/body", b"w" * 1000)
    return one.company_id, two.company_id


def _storage(settings: Settings, *args: str) -> Any:
    done = run_svc_here("admin", "storage", *args, env=svc_env(settings.data_dir))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in args else done.stdout


def _records(report: dict[str, Any]) -> dict[tuple[str, str | None], tuple[int, int, int]]:
    return {
        (record["kind"], record["companyId"]): (record["rows"], record["bytes"], record["referencedBytes"])
        for record in report["records"]
    }


def test_every_kind_and_company_is_summed(settings: Settings, seeded: tuple[str, str]) -> None:
    one, two = seeded
    report = _storage(settings, "--json")
    assert report["companyId"] is None
    assert _records(report) == {
        ("webhook_executions", one): (6, 6 * 7 + 3 * 2, 0),
        ("webhook_executions", two): (2, 2 * 7 + 2, 0),
        ("webhook_payloads", one): (3, 3 * (17 + 9), 1000),
        ("webhook_payloads", two): (1, 17 + 9, 1000),
        ("scheduled_runs", one): (1, 11, 0),
        ("jobs", one): (1, 12, 0),
        ("replays", one): (1, 0, 0),
        ("replays", two): (1, 0, 0),
        ("dedup_keys", one): (1, 5, 0),
        ("dedup_keys", two): (1, 5, 0),
        ("rate_counters", None): (1, len("trigger:minute:x"), 0),
    }
    totals = {total["kind"]: total for total in report["totals"]}
    assert len(totals) == 9  # every kind, rows or not
    assert totals["webhook_executions"]["rows"] == 8
    assert totals["uploads"]["rows"] == 0
    assert totals["webhook_payloads"]["referencedBytes"] == 2000
    on_disk = totals["webhook_executions"]["tableBytes"]
    if settings.resolved_database_url.startswith("postgresql"):
        assert on_disk is not None
    if on_disk is not None:  # a SQLite built without its dbstat table cannot say
        assert on_disk > 0 and all(total["tableBytes"] > 0 for total in totals.values())
    objects = {
        (area["area"], area["companyId"]): (area["objects"], area["bytes"]) for area in report["objects"]
    }
    assert objects == {
        ("results", one): (1, 300),
        ("uploads", one): (1, 50),
        ("uploads", two): (1, 70),
        ("webhook-bodies", two): (1, 1000),
    }
    database = report["database"]
    assert database["fileBytes"] > 0
    if settings.resolved_database_url.startswith("sqlite"):
        assert database["backend"] == "sqlite"
        assert database["freeBytes"] is not None and database["walBytes"] is not None
    else:
        assert database["backend"] == "postgresql"
    assert "request_payload" in report["counted"]["webhook_payloads"]


def test_one_company_alone(settings: Settings, seeded: tuple[str, str]) -> None:
    one, two = seeded
    report = _storage(settings, "--json", "--company-id", two)
    assert report["companyId"] == two
    assert _records(report) == {
        ("webhook_executions", two): (2, 16, 0),
        ("webhook_payloads", two): (1, 26, 1000),
        ("replays", two): (1, 0, 0),
        ("dedup_keys", two): (1, 5, 0),
    }
    objects = {
        (area["area"], area["companyId"]): (area["objects"], area["bytes"]) for area in report["objects"]
    }
    assert objects == {("uploads", two): (1, 70), ("webhook-bodies", two): (1, 1000)}
    assert one not in json.dumps(report)


def test_the_table_names_what_it_counts(settings: Settings, seeded: tuple[str, str]) -> None:
    one, _two = seeded
    text = _storage(settings)
    assert "webhook_payloads" in text and "referenced" in text
    assert "webhook-bodies/" in text and "1000 B" in text
    assert "What is counted" in text and "request_payload, request_headers" in text
    assert one in text


def test_an_unknown_company_is_an_error(settings: Settings, db: Db) -> None:
    done = run_svc_here("admin", "storage", "--company-id", "0" * 32, env=svc_env(settings.data_dir))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "not found" in done.stderr
