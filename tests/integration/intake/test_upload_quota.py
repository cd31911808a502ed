"""The upload quota of a company (open uploads, bytes held in incomplete uploads), the abort call, and
expiry as the intake answers it. A hostile company fills its quota; its victim, another company, uploads
as before."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from sqlalchemy import select

from schemas.settings import Settings
from sinks.db.analytics import uploads
from sinks.db.models import Upload
from sinks.objectstore import ObjectStore, object_store
from sinks.objectstore.local import LocalObjectStore
from streams.analytics.uploads import sweep_expired
from tests.fixtures.s3 import s3_server
from tests.fixtures.stack import Db, Ingress, make_settings, migrated
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker, worker_env

pytestmark = [pytest.mark.integration, pytest.mark.served]  # parts, some streamed, are sent over real HTTP

BASE = "/clients/svcdb-intake"
MIB = 1024 * 1024
QUOTA = 12 * MIB
MAX_OPEN = 3


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        upload_quota_bytes=QUOTA,
        upload_max_open=MAX_OPEN,
        upload_expiry_seconds=4,
    )


def call(world: Tables, key: str, operation: str, body: dict[str, Any]) -> httpx.Response:
    return world.client.post(f"{BASE}/{operation}", headers={"Authorization": key}, json=body)


def start(world: Tables, key: str, name: str = "orders.csv") -> dict[str, Any]:
    answer = call(world, key, "multipart-initiate", {"fileName": name})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def ref(upload: dict[str, Any]) -> dict[str, str]:
    return {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"]}


def links(world: Tables, key: str, upload: dict[str, Any], numbers: list[int]) -> dict[int, str]:
    answer = call(world, key, "multipart-part-urls", {**ref(upload), "partNumbers": numbers})
    assert answer.status_code == 200, answer.text
    return {int(number): url for number, url in answer.json()["partUrls"].items()}


def put(url: str, data: bytes | Iterator[bytes]) -> httpx.Response:
    return httpx.put(url, content=data, timeout=60)


def chunked(size: int, piece: int = 64 * 1024) -> Iterator[bytes]:
    """A body without a Content-Length (sent chunked), as a client streaming a part of unknown size."""
    sent = 0
    while sent < size:
        step = min(piece, size - sent)
        sent += step
        yield b"c" * step


def assert_quota(answer: httpx.Response) -> None:
    assert answer.status_code == 429, answer.text
    body = answer.json()
    assert body["errorCode"] == "QUOTA"
    assert body["errors"] and body["errors"][0]
    assert "multipart-abort" in body["hint"]
    assert 1 <= int(answer.headers["Retry-After"]) <= 4


def held(db: Db, upload_id: str) -> tuple[int, int, str]:
    with db.sessions() as session:
        row = session.execute(
            select(Upload.held_bytes, Upload.reserved_bytes, Upload.state).where(Upload.id == upload_id)
        ).one()
    return int(row[0]), int(row[1]), str(row[2])


def store_of(ingress: Ingress) -> ObjectStore:
    store: ObjectStore = ingress.app.state.store
    return store


def staging(ingress: Ingress, db: Db, upload_id: str) -> Path:
    store = store_of(ingress)
    assert isinstance(store, LocalObjectStore)
    with db.sessions() as session:
        store_id = session.scalar(select(Upload.store_upload_id).where(Upload.id == upload_id))
    return store.staging / str(store_id)


def staged_bytes(ingress: Ingress, db: Db, upload_id: str) -> int:
    folder = staging(ingress, db, upload_id)
    return sum(path.stat().st_size for path in folder.glob("*.part")) if folder.exists() else 0


def test_open_uploads_are_limited_per_company(tables_world: Tables) -> None:
    hostile, victim = tables_world.admin_client, tables_world.outsider_client
    opened = [start(tables_world, hostile) for _ in range(MAX_OPEN)]
    refused = call(tables_world, hostile, "multipart-initiate", {"fileName": "more.csv"})
    assert_quota(refused)
    assert f"{MAX_OPEN} incomplete uploads" in refused.json()["errors"][0]
    # A colleague of the same company shares its limit; another company does not.
    assert_quota(call(tables_world, tables_world.member_client, "multipart-initiate", {"fileName": "x.csv"}))
    for _ in range(MAX_OPEN):
        start(tables_world, victim)
    # An aborted upload frees its place.
    assert call(tables_world, hostile, "multipart-abort", ref(opened[0])).status_code == 200
    start(tables_world, hostile)
    assert_quota(call(tables_world, hostile, "multipart-initiate", {"fileName": "more.csv"}))


def test_part_bytes_count_against_the_company_quota(tables_world: Tables, ingress: Ingress) -> None:
    hostile, victim = tables_world.admin_client, tables_world.outsider_client
    upload = start(tables_world, hostile)
    urls = links(tables_world, hostile, upload, [1, 2, 3])
    first = put(urls[1], b"a" * 6 * MIB)
    assert first.status_code == 200, first.text
    # Sending a part again replaces it: the upload holds the part once.
    replaced = put(urls[1], b"b" * 6 * MIB)
    assert replaced.status_code == 200
    assert held(tables_world.db, upload["uploadId"]) == (6 * MIB, 0, "UPLOADING")
    second = put(urls[2], b"c" * 5 * MIB)
    assert second.status_code == 200
    over = put(urls[3], b"d" * 2 * MIB)
    assert_quota(over)
    assert "upload quota" in over.json()["errors"][0]
    assert held(tables_world.db, upload["uploadId"]) == (11 * MIB, 0, "UPLOADING")
    assert staged_bytes(ingress, tables_world.db, upload["uploadId"]) == 11 * MIB
    # Every upload of the company shares the quota.
    other = start(tables_world, hostile)
    other_urls = links(tables_world, hostile, other, [1])
    assert_quota(put(other_urls[1], b"e" * 2 * MIB))
    assert staged_bytes(ingress, tables_world.db, other["uploadId"]) == 0

    # The victim company's uploads are not held back by the hostile one's.
    theirs = start(tables_world, victim)
    their_urls = links(tables_world, victim, theirs, [1, 2, 3])
    assert put(their_urls[1], b"v" * 6 * MIB).status_code == 200
    assert put(their_urls[2], b"w" * 6 * MIB).status_code == 200
    # At its quota a company gets no more part links.
    assert_quota(call(tables_world, victim, "multipart-part-urls", {**ref(theirs), "partNumbers": [4]}))

    # A completed upload no longer counts: the hostile company may go on.
    etags = {"1": replaced.headers["ETag"], "2": second.headers["ETag"]}
    done = call(tables_world, hostile, "multipart-complete", {**ref(upload), "partETags": etags})
    assert done.status_code == 200, done.text
    assert put(other_urls[1], b"e" * 2 * MIB).status_code == 200


def test_a_part_larger_than_the_quota_and_a_streamed_part_past_it(
    tables_world: Tables, ingress: Ingress
) -> None:
    hostile = tables_world.admin_client
    upload = start(tables_world, hostile)
    urls = links(tables_world, hostile, upload, [1, 2, 3])
    too_big = put(urls[1], b"x" * (QUOTA + 1))
    assert too_big.status_code == 413 and str(QUOTA) in too_big.json()["errors"][0]
    assert put(urls[1], b"y" * 6 * MIB).status_code == 200
    # A part sent without a Content-Length is counted as it streams in and refused once it passes the quota.
    try:
        streamed: httpx.Response | None = put(urls[2], chunked(7 * MIB))
    except httpx.TransportError:  # the server may close the connection before the client sent it all
        streamed = None
    if streamed is not None:
        assert_quota(streamed)
    assert held(tables_world.db, upload["uploadId"]) == (6 * MIB, 0, "UPLOADING")
    assert staged_bytes(ingress, tables_world.db, upload["uploadId"]) == 6 * MIB
    # What was reserved for it is given back: a streamed part that fits is taken.
    fits = put(urls[2], chunked(5 * MIB))
    assert fits.status_code == 200, fits.text
    assert held(tables_world.db, upload["uploadId"]) == (11 * MIB, 0, "UPLOADING")


def test_concurrent_parts_never_take_more_than_the_quota(tables_world: Tables, ingress: Ingress) -> None:
    hostile = tables_world.admin_client
    upload = start(tables_world, hostile)
    urls = links(tables_world, hostile, upload, list(range(1, 9)))

    def send(number: int) -> int:
        body: bytes | Iterator[bytes] = b"p" * 4 * MIB if number % 2 else chunked(4 * MIB)
        try:
            answer = put(urls[number], body)
        except httpx.TransportError:
            return 0
        assert answer.status_code in (200, 429), answer.text
        return answer.status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(send, range(1, 9)))
    taken = statuses.count(200)
    assert 1 <= taken <= QUOTA // (4 * MIB), statuses
    stored = staged_bytes(ingress, tables_world.db, upload["uploadId"])
    assert stored == taken * 4 * MIB <= QUOTA
    assert held(tables_world.db, upload["uploadId"]) == (stored, 0, "UPLOADING")


def test_abort_deletes_the_parts_and_frees_the_quota(tables_world: Tables, ingress: Ingress) -> None:
    hostile, victim = tables_world.admin_client, tables_world.outsider_client
    upload = start(tables_world, hostile)
    urls = links(tables_world, hostile, upload, [1, 2])
    assert put(urls[1], b"a" * 10 * MIB).status_code == 200
    folder = staging(ingress, tables_world.db, upload["uploadId"])
    assert folder.is_dir()

    not_found = {"errors": [f"Upload {upload['uploadId']} not found"]}
    outsider = call(tables_world, victim, "multipart-abort", ref(upload))
    assert outsider.status_code == 404 and outsider.json() == not_found
    unknown = call(tables_world, hostile, "multipart-abort", {**ref(upload), "uploadId": "f" * 32})
    assert unknown.status_code == 404
    wrong_key = call(tables_world, hostile, "multipart-abort", {**ref(upload), "s3Key": "uploads/x.csv"})
    assert wrong_key.status_code == 400 and "s3Key" in wrong_key.json()["errors"][0]
    extra = call(tables_world, hostile, "multipart-abort", {**ref(upload), "partNumbers": [1]})
    assert extra.status_code == 400
    assert tables_world.client.post(f"{BASE}/multipart-abort", json=ref(upload)).status_code == 401
    assert folder.is_dir()  # none of those touched it

    aborted = call(tables_world, tables_world.member_client, "multipart-abort", ref(upload))
    assert aborted.status_code == 200, aborted.text
    assert aborted.json() == {"uploadId": upload["uploadId"], "state": "ABORTED", "errors": []}
    assert not folder.exists()
    assert held(tables_world.db, upload["uploadId"]) == (0, 0, "ABORTED")
    again = call(tables_world, hostile, "multipart-abort", ref(upload))
    assert again.status_code == 200 and again.json()["state"] == "ABORTED"

    late = put(urls[2], b"b" * MIB)
    assert late.status_code == 410 and "aborted" in late.json()["errors"][0]
    complete = call(tables_world, hostile, "multipart-complete", {**ref(upload), "partETags": {"1": '"x"'}})
    assert complete.status_code == 410
    assert (
        call(tables_world, hostile, "multipart-part-urls", {**ref(upload), "partNumbers": [3]}).status_code
        == 410
    )
    assert not folder.exists()

    # Its bytes are free again.
    fresh = start(tables_world, hostile)
    assert put(links(tables_world, hostile, fresh, [1])[1], b"c" * 10 * MIB).status_code == 200
    # A completed upload cannot be aborted.
    small = start(tables_world, hostile)
    etag = put(links(tables_world, hostile, small, [1])[1], b"last").headers["ETag"]
    done = call(tables_world, hostile, "multipart-complete", {**ref(small), "partETags": {"1": etag}})
    assert done.status_code == 200
    conflict = call(tables_world, hostile, "multipart-abort", ref(small))
    assert conflict.status_code == 409 and "completed" in conflict.json()["errors"][0]
    assert store_of(ingress).get_bytes(small["s3Key"]) == b"last"


def test_an_expired_upload_refuses_parts_and_completion(tables_world: Tables, ingress: Ingress) -> None:
    hostile = tables_world.admin_client
    upload = start(tables_world, hostile)
    urls = links(tables_world, hostile, upload, [1, 2])
    etag = put(urls[1], b"a" * MIB).headers["ETag"]
    folder = staging(ingress, tables_world.db, upload["uploadId"])
    swept = sweep_expired(
        tables_world.db.sessions,
        store_of(ingress),
        now=datetime.now(UTC) + timedelta(seconds=10),
        expiry_seconds=4,
    )
    assert swept.expired >= 1 and swept.failed == 0
    assert not folder.exists()
    late = put(urls[2], b"b" * MIB)
    assert late.status_code == 410 and "expired" in late.json()["errors"][0]
    complete = call(tables_world, hostile, "multipart-complete", {**ref(upload), "partETags": {"1": etag}})
    assert complete.status_code == 410 and "expired" in complete.json()["errors"][0]
    aborted = call(tables_world, hostile, "multipart-abort", ref(upload))
    assert aborted.status_code == 200 and aborted.json()["state"] == "EXPIRED"


class _Worker(Worker):
    """`svc worker` with the short upload lifetime of these tests (the shared fixture passes no upload
    settings)."""

    def env(self) -> dict[str, str]:
        return {
            **worker_env(self.settings),
            "SVC_UPLOAD_EXPIRY_SECONDS": str(self.settings.upload_expiry_seconds),
        }


def test_the_leader_worker_sweeps_expired_uploads(
    tables_world: Tables, ingress: Ingress, kafka_settings: Settings, tmp_path: Path
) -> None:
    hostile = tables_world.admin_client
    upload = start(tables_world, hostile)
    urls = links(tables_world, hostile, upload, [1])
    assert put(urls[1], b"a" * MIB).status_code == 200
    folder = staging(ingress, tables_world.db, upload["uploadId"])
    worker = _Worker(kafka_settings, tmp_path / "worker.log")
    worker.start()
    try:
        deadline = time.monotonic() + 90
        while held(tables_world.db, upload["uploadId"])[2] != "EXPIRED" or folder.exists():
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.5)
    finally:
        worker.stop()
    assert held(tables_world.db, upload["uploadId"]) == (0, 0, "EXPIRED")


def test_the_sweep_deletes_s3_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bucket = "svc-quota"
    with s3_server(monkeypatch, bucket, "test-secret") as endpoint:
        settings = Settings(data_dir=tmp_path, object_store=f"s3://{bucket}/svc", s3_endpoint=endpoint)
        store = object_store(settings)
        raw = boto3.client("s3", endpoint_url=endpoint)
        with migrated(make_settings(tmp_path / "db")) as db:
            company = db.create_company().company_id
            for name in ("old.csv", "older.csv"):
                key = f"uploads/{company}/{name}"
                store_id = store.initiate_multipart(key)
                store.put_part(key, store_id, 1, b"z" * MIB)
                assert store.multipart_bytes(key, store_id) == MIB
                _record(db, company, key, store_id)
            assert len(raw.list_multipart_uploads(Bucket=bucket).get("Uploads", [])) == 2
            swept = sweep_expired(
                db.sessions, store, now=datetime.now(UTC) + timedelta(days=2), expiry_seconds=86_400
            )
            assert (swept.expired, swept.cleaned, swept.failed) == (2, 2, 0)
            assert raw.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
            # Discarding again (an abort after the sweep) is not an error.
            store.discard_multipart(f"uploads/{company}/old.csv", "no-such-upload")


def _record(db: Db, company_id: str, key: str, store_id: str) -> str:
    upload_id = uuid.uuid4().hex
    with db.sessions.begin() as session:
        uploads.create(
            session,
            upload_id=upload_id,
            company_id=company_id,
            created_by=company_id,
            file_name=key.rsplit("/", 1)[1],
            key=key,
            s3_key=key,
            s3_uri=f"s3://bucket/{key}",
            store_upload_id=store_id,
            now=datetime.now(UTC),
        )
    return upload_id
