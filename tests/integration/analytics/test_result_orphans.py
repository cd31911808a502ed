"""Result files no job names are removed once they are old enough, on the real metadata DB and object store
(the local directory, then S3 as moto's server runs it); every file a job names or will write stays."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest
from sqlalchemy import insert

from schemas.ids import new_id
from schemas.jobs import JobKind, JobState
from schemas.settings import Settings
from sinks.db.analytics import jobs
from sinks.db.analytics.jobs import Outcome
from sinks.db.models import AnalyticsTable
from sinks.job_results import result_key
from sinks.objectstore import ObjectStore, object_store
from sinks.objectstore.local import LocalObjectStore
from sinks.result_orphans import ORPHAN_MIN_AGE, sweep_orphan_results
from tests.fixtures.s3 import s3_server
from tests.fixtures.stack import Db, make_settings, migrated

pytestmark = pytest.mark.integration

SEED_BUCKET = "svc-orphans-seed"
SECRET_KEY = "orphans-test-secret-0123456789"


class World:
    """A company with one table, its metadata DB and object store."""

    def __init__(self, db: Db, store: ObjectStore) -> None:
        self.db = db
        self.store = store
        created = db.create_company()
        self.company_id, self.user_id = created.company_id, created.user_id
        self.table_id = new_id()
        with db.sessions.begin() as session:
            session.execute(
                insert(AnalyticsTable).values(
                    id=self.table_id,
                    company_id=self.company_id,
                    sql_name="orders",
                    name="Orders",
                    columns_json="[]",
                    created_by=self.user_id,
                )
            )

    def result(self, job_id: str) -> str:
        key = result_key(self.company_id, job_id)
        self.store.put_bytes(key, b"PAR1")
        return key

    def job(self, job_id: str, outcome: Outcome | None, now: datetime) -> None:
        """A query job; ended with ``outcome``, or still QUEUED without one."""
        fields = {
            "job_id": job_id,
            "company_id": self.company_id,
            "table_id": self.table_id,
            "table_ids": [self.table_id],
            "kind": JobKind.QUERY,
            "created_by": self.user_id,
            "sql": "SELECT 1",
            "plan": "{}",
            "bytes_scanned": 0,
            "now": now,
        }
        with self.db.sessions.begin() as session:
            if outcome is None:
                jobs.create(session, **fields)
            else:
                jobs.create_ended(session, outcome=outcome, finished=now, **fields)


def age(store: ObjectStore, key: str, when: datetime) -> None:
    """Sets the file's last-modified time, as a file written ``when`` has it."""
    assert isinstance(store, LocalObjectStore)
    os.utime(store.root / key, (when.timestamp(), when.timestamp()))


@pytest.fixture
def world(db: Db, settings: Settings) -> World:
    return World(db, object_store(settings))


def test_only_an_old_file_no_job_names_is_removed(world: World) -> None:
    now = datetime.now(UTC)
    long_ago = now - ORPHAN_MIN_AGE - timedelta(hours=1)
    named, old_orphan, fresh_orphan = new_id(), new_id(), new_id()
    world.job(named, Outcome(JobState.SUCCEEDED, result_key=world.result(named)), now)
    world.result(old_orphan)
    world.result(fresh_orphan)
    age(world.store, result_key(world.company_id, named), long_ago)
    age(world.store, result_key(world.company_id, old_orphan), long_ago)

    swept = sweep_orphan_results(world.db.sessions, world.store, now=now)

    assert swept.removed == 1 and swept.resume_after is None
    assert world.store.exists(result_key(world.company_id, named))
    assert not world.store.exists(result_key(world.company_id, old_orphan))
    assert world.store.exists(result_key(world.company_id, fresh_orphan))


def test_files_of_shared_and_waiting_jobs_and_foreign_names_stay(world: World) -> None:
    """A job answered from the cache names another job's file; a QUEUED job sent again writes its own; a file
    not named as a result is not the sweep's."""
    now = datetime.now(UTC)
    long_ago = now - ORPHAN_MIN_AGE - timedelta(hours=1)
    source, shared, waiting = new_id(), new_id(), new_id()
    source_key = world.result(source)
    world.job(shared, Outcome(JobState.SUCCEEDED, result_key=source_key), now)
    waiting_key = world.result(waiting)
    world.job(waiting, None, now)
    foreign = f"results/{world.company_id}/notes.parquet"
    world.store.put_bytes(foreign, b"x")
    for key in (source_key, waiting_key, foreign):
        age(world.store, key, long_ago)

    swept = sweep_orphan_results(world.db.sessions, world.store, now=now)

    assert swept.removed == 0
    assert all(world.store.exists(key) for key in (source_key, waiting_key, foreign))


def test_passes_go_on_after_the_last_file_then_start_again(world: World) -> None:
    now = datetime.now(UTC)
    long_ago = now - ORPHAN_MIN_AGE - timedelta(hours=1)
    named = new_id()
    world.job(named, Outcome(JobState.SUCCEEDED, result_key=world.result(named)), now)
    keys = [result_key(world.company_id, named)] + [world.result(new_id()) for _ in range(2)]
    for key in keys:
        age(world.store, key, long_ago)

    removed, after, passes = 0, None, 0
    while True:
        swept = sweep_orphan_results(world.db.sessions, world.store, now=now, limit=1, start_after=after)
        removed, after, passes = removed + swept.removed, swept.resume_after, passes + 1
        if after is None:
            break
        assert passes <= len(keys)

    assert (removed, passes) == (2, len(keys) + 1)
    assert [key for key in keys if world.store.exists(key)] == [keys[0]]


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch, s3_server(patch, SEED_BUCKET, SECRET_KEY) as endpoint:
        yield endpoint


@pytest.fixture
def s3_world(tmp_path: Path, s3_endpoint: str) -> Iterator[World]:
    """The world with its object store in a new bucket on S3, under a prefix."""
    bucket = f"svc-orphans-{uuid.uuid4().hex[:12]}"
    settings = make_settings(tmp_path / "data", object_store=f"s3://{bucket}/svc", s3_endpoint=s3_endpoint)
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=bucket)
    with migrated(settings) as db:
        yield World(db, object_store(settings))


def test_s3_lists_old_objects_under_the_prefix_in_pages(s3_world: World) -> None:
    """moto stamps each object with the time it was written, so the cut-offs are an hour either side."""
    store = s3_world.store
    keys = sorted(s3_world.result(new_id()) for _ in range(3))
    store.put_bytes("uploads/a.csv", b"x")
    later, earlier = datetime.now(UTC) + timedelta(hours=1), datetime.now(UTC) - timedelta(hours=1)

    assert store.list_older("results/", later, 10) == keys
    assert store.list_older("results/", earlier, 10) == []
    assert store.list_older("results/", later, 2) == keys[:2]
    assert store.list_older("results/", later, 2, start_after=keys[1]) == keys[2:]


def test_s3_sweep_removes_only_files_no_job_names(s3_world: World) -> None:
    """Every file counts as old (a cut-off an hour ahead): the one a job names stays."""
    now = datetime.now(UTC)
    named, orphan = new_id(), new_id()
    s3_world.job(named, Outcome(JobState.SUCCEEDED, result_key=s3_world.result(named)), now)
    s3_world.result(orphan)

    swept = sweep_orphan_results(
        s3_world.db.sessions, s3_world.store, now=now + timedelta(hours=1), min_age=timedelta(0)
    )

    assert swept.removed == 1
    assert s3_world.store.exists(result_key(s3_world.company_id, named))
    assert not s3_world.store.exists(result_key(s3_world.company_id, orphan))
