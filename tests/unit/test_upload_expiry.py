"""The expiry sweep of incomplete uploads, run directly against a real metadata DB (a SQLite file) and a real
local object store; and its timer on the worker's app."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.analytics import uploads
from sinks.db.models import Upload
from sinks.objectstore import NoSuchUpload
from sinks.objectstore.local import LocalObjectStore
from streams.analytics.uploads import SWEEP_SECONDS, UploadSweeper, sweep_expired, sweep_interval
from streams.app import create_app
from streams.areas import AREAS
from tests.fixtures.stack import Db

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
DAY = 86_400


class FlakyStore(LocalObjectStore):
    """The local store whose deletes fail while ``failing`` (as an S3 outage would)."""

    failing = False

    def discard_multipart(self, key: str, upload_id: str) -> None:
        if self.failing:
            raise OSError("the store is unavailable")
        super().discard_multipart(key, upload_id)


@pytest.fixture
def store(tmp_path: Path) -> FlakyStore:
    return FlakyStore(tmp_path / "objects", "svc-local")


def add_upload(db: Db, store: LocalObjectStore, company_id: str, started: datetime, parts: int = 1) -> Upload:
    upload_id = uuid.uuid4().hex
    key = f"uploads/{company_id}/{upload_id}/data.csv"
    store_id = store.initiate_multipart(key)
    for number in range(1, parts + 1):
        store.put_part(key, store_id, number, b"x" * 1000)
    with db.sessions.begin() as session:
        upload = uploads.create(
            session,
            upload_id=upload_id,
            company_id=company_id,
            created_by=company_id,
            file_name="data.csv",
            key=key,
            s3_key=key,
            s3_uri=f"s3://svc-local/{key}",
            store_upload_id=store_id,
            now=started,
        )
        session.expunge(upload)
    return upload


def state(db: Db, upload: Upload) -> tuple[str, int, bool, bool]:
    with db.sessions() as session:
        row = session.execute(
            select(Upload.state, Upload.held_bytes, Upload.ended_at, Upload.cleaned_at).where(
                Upload.id == upload.id
            )
        ).one()
    return str(row[0]), int(row[1]), row[2] is not None, row[3] is not None


def staged(store: LocalObjectStore, upload: Upload) -> bool:
    return (store.staging / upload.store_upload_id).exists()


def test_the_sweep_expires_old_incomplete_uploads_and_deletes_their_parts(db: Db, store: FlakyStore) -> None:
    company = db.create_company().company_id
    other = db.create_company("Other", "admin@other.test").company_id
    old = add_upload(db, store, company, NOW - timedelta(seconds=DAY + 1), parts=2)
    fresh = add_upload(db, store, company, NOW - timedelta(seconds=DAY - 60))
    elsewhere = add_upload(db, store, other, NOW - timedelta(days=3))
    completing = add_upload(db, store, company, NOW - timedelta(days=2))
    with db.sessions.begin() as session:
        assert uploads.claim_completion(session, company, completing.id)
    with db.sessions.begin() as session:
        uploads.record_held(session, company, old.id, store.multipart_bytes(old.key, old.store_upload_id))
        assert uploads.usage(session, company).held_bytes == 2000

    swept = sweep_expired(db.sessions, store, now=NOW, expiry_seconds=DAY)

    assert (swept.expired, swept.cleaned, swept.failed) == (2, 2, 0)
    assert state(db, old) == ("EXPIRED", 0, True, True)
    assert state(db, elsewhere) == ("EXPIRED", 0, True, True)
    assert not staged(store, old) and not staged(store, elsewhere)
    # Within its lifetime, or being completed: left as it is.
    assert state(db, fresh) == ("UPLOADING", 0, False, False) and staged(store, fresh)
    assert state(db, completing)[0] == "COMPLETING" and staged(store, completing)
    with db.sessions() as session:
        assert uploads.usage(session, company).held_bytes == 0
    # An expired upload stays expired: a completion cannot claim it.
    with db.sessions.begin() as session:
        assert not uploads.claim_completion(session, company, old.id)
    again = sweep_expired(db.sessions, store, now=NOW, expiry_seconds=DAY)
    assert (again.expired, again.cleaned, again.failed) == (0, 0, 0)


def test_parts_the_store_could_not_delete_are_deleted_by_a_later_sweep(db: Db, store: FlakyStore) -> None:
    company = db.create_company().company_id
    expiring = add_upload(db, store, company, NOW - timedelta(days=2))
    aborted = add_upload(db, store, company, NOW)
    with db.sessions.begin() as session:
        assert uploads.end(session, company, aborted.id, uploads.UploadState.ABORTED, NOW)
    store.failing = True
    failed = sweep_expired(db.sessions, store, now=NOW, expiry_seconds=DAY)
    assert (failed.expired, failed.cleaned, failed.failed) == (1, 0, 2)
    assert state(db, expiring) == ("EXPIRED", 0, True, False) and staged(store, expiring)
    assert state(db, aborted) == ("ABORTED", 0, True, False) and staged(store, aborted)
    store.failing = False
    later = sweep_expired(db.sessions, store, now=NOW + timedelta(minutes=1), expiry_seconds=DAY)
    assert (later.expired, later.cleaned, later.failed) == (0, 2, 0)
    assert not staged(store, expiring) and not staged(store, aborted)
    assert state(db, aborted) == ("ABORTED", 0, True, True)


def test_discarding_an_upload_is_idempotent_and_stays_with_its_key(store: FlakyStore) -> None:
    key = "uploads/c/u/data.csv"
    store_id = store.initiate_multipart(key)
    store.put_part(key, store_id, 1, b"abc")
    assert store.multipart_bytes(key, store_id) == 3
    with pytest.raises(NoSuchUpload):
        store.discard_multipart("uploads/c/other/data.csv", store_id)
    assert (store.staging / store_id).exists()
    store.discard_multipart(key, store_id)
    store.discard_multipart(key, store_id)
    store.discard_multipart(key, "not-an-upload-id")
    assert not (store.staging / store_id).exists()


def test_the_sweep_runs_on_the_leader_worker(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, kafka_bootstrap="127.0.0.1:9", upload_expiry_seconds=DAY)
    app = create_app(settings, areas=AREAS)
    tasks = [getattr(task, "__wrapped__", task) for task in app._app_tasks]
    names = {getattr(task, "__name__", "") for task in tasks}
    assert "sweep_expired_uploads" in names
    assert any(isinstance(service, UploadSweeper) for service in app._extra_services)
    assert sweep_interval(DAY) == SWEEP_SECONDS
    assert sweep_interval(8) == 2 and sweep_interval(1) == 1
