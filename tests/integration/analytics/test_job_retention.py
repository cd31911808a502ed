"""Retention of analytics records (issue 43): finished query, load and append jobs past their company's
retention are gone (``NOT_FOUND`` to /job-status, absent from /jobs), while unfinished and recent ones stay;
ended uploads and past days' scan charges go too."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from schemas.settings import Settings
from sinks.db.models import Job, ReadCharge, TableWrite, Upload
from tests.fixtures.retention import sweep
from tests.fixtures.tables import Tables
from tests.integration.analytics.test_append_job_status import append, listed, rows_from, status

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC)
OLD = NOW - timedelta(hours=3)


def job(world: Tables, table_id: str, job_id: str, state: str, created: datetime) -> None:
    finished = created + timedelta(seconds=5) if state not in ("QUEUED", "RUNNING") else None
    with world.db.sessions.begin() as session:
        session.add(
            Job(
                id=job_id,
                company_id=world.company_id,
                table_id=table_id,
                kind="QUERY",
                state=state,
                created_by=world.member_id,
                sql="SELECT 1",
                created_at=created,
                finished_at=finished,
            )
        )


def test_finished_jobs_past_the_retention_are_not_found(
    tables_world: Tables, kafka_settings: Settings
) -> None:
    world = tables_world
    table_id = world.create()
    job(world, table_id, "q" * 32, "SUCCEEDED", OLD)
    job(world, table_id, "f" * 32, "FAILED", OLD)
    job(world, table_id, "r" * 32, "RUNNING", OLD)  # unfinished: kept, its worker still reports on it
    job(world, table_id, "n" * 32, "SUCCEEDED", NOW - timedelta(minutes=10))
    old_append, running_append, new_append = (append(world, table_id, rows_from(n)) for n in (1, 11, 21))
    with world.db.sessions.begin() as session:
        session.execute(
            update(TableWrite)
            .where(TableWrite.id == old_append)
            .values(status="COMMITTED", created_at=OLD, committed_at=OLD)
        )
        session.execute(update(TableWrite).where(TableWrite.id == running_append).values(created_at=OLD))
        session.execute(
            update(TableWrite).where(TableWrite.id == new_append).values(status="COMMITTED", committed_at=NOW)
        )
        upload = dict(
            company_id=world.company_id,
            created_by=world.member_id,
            file_name="f.csv",
            key="k",
            s3_key="k",
            s3_uri="s3://b/k",
            store_upload_id="u",
            created_at=OLD - timedelta(days=3),
        )
        session.add(Upload(id="e" * 32, state="EXPIRED", cleaned_at=NOW - timedelta(days=2), **upload))
        session.add(Upload(id="a" * 32, state="ABORTED", cleaned_at=None, **upload))  # parts not gone yet
        session.add(Upload(id="c" * 32, state="COMPLETED", **upload))
        today = NOW.date()
        for day in (today - timedelta(days=5), today - timedelta(days=1), today):
            session.add(ReadCharge(company_id=world.company_id, day=day, bytes_read=1))

    swept = sweep(kafka_settings, NOW, jobs_retention_seconds=3600)
    assert (swept.jobs, swept.appends, swept.uploads, swept.read_charges) == (2, 1, 1, 1)

    for gone in ("q" * 32, "f" * 32, old_append):
        answer = status(world, table_id, gone)
        assert answer.status_code == 404, answer.text
        assert answer.json()["errorCode"] == "NOT_FOUND"
    for kept in ("r" * 32, "n" * 32, running_append, new_append):
        assert status(world, table_id, kept).status_code == 200, kept
    assert set(listed(world, table_id)) == {running_append, new_append}
    with world.db.sessions() as session:
        assert set(session.scalars(select(Upload.id))) == {"a" * 32, "c" * 32}
        days = set(session.scalars(select(ReadCharge.day)))
        assert days == {today - timedelta(days=1), today}
        assert isinstance(min(days), date)
        assert session.scalar(select(func.count()).select_from(Job)) == 2
