import hashlib
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from moto.server import ThreadedMotoServer

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from sinks.objectstore import MIN_PART_BYTES, NoSuchKey, NoSuchUpload, ObjectStore, PartTooSmall, object_store
from sinks.objectstore.s3 import S3ObjectStore
from tests.fixtures.stack import Ingress, make_settings, migrated

pytestmark = pytest.mark.integration

BUCKET = "svc-uploads"


@pytest.fixture
def s3_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    port = broker.free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
    try:
        yield endpoint
    finally:
        server.stop()


def _store(tmp_path: Path, endpoint: str) -> ObjectStore:
    settings = Settings(data_dir=tmp_path, object_store=f"s3://{BUCKET}/svc/", s3_endpoint=endpoint)
    return object_store(settings)


def test_the_s3_store_keeps_objects_under_its_prefix(tmp_path: Path, s3_endpoint: str) -> None:
    store = _store(tmp_path, s3_endpoint)
    assert isinstance(store, S3ObjectStore)
    assert store.uri("results/c/j.parquet") == f"s3://{BUCKET}/svc/results/c/j.parquet"
    assert store.key_of(f"s3://{BUCKET}/svc/results/c/j.parquet") == "results/c/j.parquet"
    assert store.key_of(f"s3://{BUCKET}/other/x") is None
    store.put_bytes("a/b.txt", b"hello")
    raw = boto3.client("s3", endpoint_url=s3_endpoint)
    assert raw.get_object(Bucket=BUCKET, Key="svc/a/b.txt")["Body"].read() == b"hello"
    assert store.exists("a/b.txt") and store.size("a/b.txt") == 5 and store.get_bytes("a/b.txt") == b"hello"
    filesystem, base = store.arrow_filesystem()
    table = pa.table({"n": [1, 2]})
    pq.write_table(table, f"{base}/results/c/j.parquet", filesystem=filesystem)
    assert pq.read_table(f"{base}/results/c/j.parquet", filesystem=filesystem).equals(table)
    assert store.delete_prefix("a/") == 1 and store.delete_prefix("results/") == 1
    assert not store.exists("a/b.txt")
    with pytest.raises(NoSuchKey):
        store.get_bytes("a/b.txt")


def test_s3_multipart_checks_parts_like_the_local_store(tmp_path: Path, s3_endpoint: str) -> None:
    store = _store(tmp_path, s3_endpoint)
    upload = store.initiate_multipart("up/x.csv")
    first = store.put_part("up/x.csv", upload, 1, b"a" * 100)
    last = store.put_part("up/x.csv", upload, 2, b"b")
    with pytest.raises(PartTooSmall):
        store.complete_multipart("up/x.csv", upload, {1: first, 2: last})
    store.complete_multipart("up/x.csv", upload, {1: first})
    assert store.get_bytes("up/x.csv") == b"a" * 100
    with pytest.raises(NoSuchUpload):
        store.complete_multipart("up/x.csv", upload, {1: first})


def test_upload_through_presigned_s3_links(tmp_path: Path, kafka_bootstrap: str, s3_endpoint: str) -> None:
    settings = make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        object_store=f"s3://{BUCKET}/svc",
        s3_endpoint=s3_endpoint,
    )
    with migrated(settings) as db:
        company = db.create_company()
        server = Ingress(settings)
        server.start()
        try:
            headers = {"Authorization": company.client_api_key}
            base = "/clients/svcdb-intake"
            upload = server.client.post(
                f"{base}/multipart-initiate", headers=headers, json={"fileName": "rows.csv"}
            ).json()
            assert upload["s3Key"] == f"svc/uploads/{company.company_id}/{upload['uploadId']}/rows.csv"
            assert upload["s3Uri"] == f"s3://{BUCKET}/{upload['s3Key']}"
            ref = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"]}
            answer = server.client.post(
                f"{base}/multipart-part-urls", headers=headers, json={**ref, "partNumbers": [1, 2]}
            )
            links = answer.json()["partUrls"]
            assert all(link.startswith(s3_endpoint) and "X-Amz-Signature" in link for link in links.values())
            parts = {"1": b"p" * MIN_PART_BYTES, "2": b"end"}
            etags = {}
            for number, data in parts.items():
                sent = httpx.put(links[number], content=data, timeout=60)
                assert sent.status_code == 200, sent.text
                assert sent.headers["ETag"] == f'"{hashlib.md5(data, usedforsecurity=False).hexdigest()}"'
                etags[number] = sent.headers["ETag"]
            done = server.client.post(
                f"{base}/multipart-complete", headers=headers, json={**ref, "partETags": etags}
            )
            assert done.status_code == 200, done.text
            assert done.json()["s3Uri"] == upload["s3Uri"]
            raw = boto3.client("s3", endpoint_url=s3_endpoint)
            stored = raw.get_object(Bucket=BUCKET, Key=upload["s3Key"])["Body"].read()
            assert stored == parts["1"] + parts["2"]
        finally:
            server.stop()
