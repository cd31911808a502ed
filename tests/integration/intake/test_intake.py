import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from ingress.analytics.intake import part_token
from schemas.settings import Settings
from sinks.db.analytics.uploads import uploaded_object
from sinks.objectstore import MIN_PART_BYTES, ObjectStore
from tests.fixtures.stack import Ingress, ServedIngress, make_settings, migrated
from tests.fixtures.tables import Tables

pytestmark = [pytest.mark.integration, pytest.mark.served]  # parts go to signed links over HTTP

BASE = "/clients/svcdb-intake"


def call(client: httpx.Client, key: str, operation: str, body: dict[str, Any]) -> httpx.Response:
    return client.post(f"{BASE}/{operation}", headers={"Authorization": key}, json=body)


def part_etag(data: bytes) -> str:
    return f'"{hashlib.sha256(data).hexdigest()[:32]}"'


def initiate(world: Tables, file_name: str = "orders.csv", key: str | None = None) -> dict[str, Any]:
    answer = call(world.client, key or world.admin_client, "multipart-initiate", {"fileName": file_name})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def part_urls(world: Tables, upload: dict[str, Any], numbers: list[int]) -> dict[str, str]:
    body = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"], "partNumbers": numbers}
    answer = call(world.client, world.admin_client, "multipart-part-urls", body)
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["partUrls"])


def complete(
    world: Tables, upload: dict[str, Any], etags: dict[str, str], key: str | None = None
) -> httpx.Response:
    body = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"], "partETags": etags}
    return call(world.client, key or world.admin_client, "multipart-complete", body)


def put(url: str, data: bytes) -> httpx.Response:
    return httpx.put(url, content=data, timeout=60)


PARTS = {1: b"\x01" * MIN_PART_BYTES, 2: bytes(range(256)) * (11 * 1024 * 1024 // 256), 3: b"last,row\n"}


def test_a_multipart_upload_assembles_its_parts(tables_world: Tables, ingress: Ingress) -> None:
    upload = initiate(tables_world, "../exports/orders 2026 (v2).csv")
    company = tables_world.company_id
    assert upload["s3Key"] == f"uploads/{company}/{upload['uploadId']}/orders_2026_v2_.csv"
    assert upload["s3Uri"] == f"s3://svc-local/{upload['s3Key']}"
    answer = call(
        tables_world.client,
        tables_world.admin_client,
        "multipart-part-urls",
        {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"], "partNumbers": [3, 1, 2]},
    )
    assert answer.status_code == 200, answer.text
    links = answer.json()["partUrls"]
    assert set(links) == {"1", "2", "3"}
    assert all(link.startswith(f"{ingress.base_url}{BASE}/parts/") for link in links.values())
    assert answer.json()["expiresAt"] > time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 890))

    etags = {}
    for number in (2, 3, 1):  # any order; part 2 is over the 10 MiB limit of ordinary requests
        sent = put(links[str(number)], PARTS[number])
        assert sent.status_code == 200, sent.text
        assert sent.headers["ETag"] == part_etag(PARTS[number])
        etags[str(number)] = sent.headers["ETag"]
    store: ObjectStore = ingress.app.state.store
    key = upload["s3Key"]
    with tables_world.db.sessions() as session:
        assert uploaded_object(session, company, upload["s3Uri"]) is None

    done = complete(tables_world, upload, etags)
    assert done.status_code == 200, done.text
    assert done.json() == {
        "s3Uri": upload["s3Uri"],
        "sizeBytes": sum(map(len, PARTS.values())),
        "errors": [],
    }
    assert store.get_bytes(key) == PARTS[1] + PARTS[2] + PARTS[3]
    with tables_world.db.sessions() as session:
        assert uploaded_object(session, company, upload["s3Uri"]) == key
        other = tables_world.db.create_company("Elsewhere", "admin@elsewhere.test").company_id
        assert uploaded_object(session, other, upload["s3Uri"]) is None

    again = complete(tables_world, upload, etags)
    assert again.status_code == 409 and "already completed" in again.json()["errors"][0]
    late = put(links["1"], b"late")
    assert late.status_code == 409, late.text
    body = {"uploadId": upload["uploadId"], "s3Key": key, "partNumbers": [4]}
    assert (
        call(tables_world.client, tables_world.admin_client, "multipart-part-urls", body).status_code == 409
    )
    assert store.get_bytes(key) == PARTS[1] + PARTS[2] + PARTS[3]


def test_refused_completions_change_nothing(tables_world: Tables, ingress: Ingress) -> None:
    upload = initiate(tables_world, "small.parquet")
    links = part_urls(tables_world, upload, [1, 2, 3])
    small = put(links["1"], b"x" * 1000).headers["ETag"]
    last = put(links["2"], b"y").headers["ETag"]
    cases = [
        ({"1": small, "2": '"0123456789abcdef0123456789abcdef"'}, "ETag of part(s) 2 does not match"),
        ({"1": small, "2": last, "3": last}, "Part(s) 3 were not uploaded"),
        ({"1": small, "2": last}, "Part(s) 1 are under the 5242880-byte minimum"),
    ]
    for etags, message in cases:
        answer = complete(tables_world, upload, etags)
        assert answer.status_code == 400, answer.text
        assert message in answer.json()["errors"][0]
    for etags in ({}, {"0": small}, {"10001": small}, {"one": small}):
        answer = complete(tables_world, upload, etags)
        assert answer.status_code == 400, (etags, answer.text)
    store: ObjectStore = ingress.app.state.store
    assert not store.exists(upload["s3Key"])
    # The parts are all still there: the same upload completes once the request is right.
    answer = complete(tables_world, upload, {"1": small.strip('"')})
    assert answer.status_code == 200, answer.text
    assert store.get_bytes(upload["s3Key"]) == b"x" * 1000


def test_links_are_signed_bound_and_expire(tables_world: Tables, ingress: Ingress) -> None:
    upload = initiate(tables_world)
    link = part_urls(tables_world, upload, [1])["1"]
    prefix, token = link.rsplit("/", 1)
    body, signature = token.split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    for forged in (f"{body}.{flipped}", f"{body}x.{signature}", "garbage", f"{body}.{signature}.x"):
        answer = put(f"{prefix}/{forged}", b"data")
        assert answer.status_code == 403, answer.text
        assert answer.json()["errors"][0].startswith("Upload link refused")

    secret = ingress.settings.secret_key
    fields = {"upload_id": upload["uploadId"], "company_id": tables_world.company_id, "key": upload["s3Key"]}
    expired = part_token(secret, **fields, part_number=1, expires_at=int(time.time()) - 1)
    answer = put(f"{prefix}/{expired}", b"data")
    assert answer.status_code == 403 and "expired" in answer.json()["errors"][0]
    other_company = part_token(
        secret, **{**fields, "company_id": "0" * 32}, part_number=1, expires_at=int(time.time()) + 60
    )
    assert put(f"{prefix}/{other_company}", b"data").status_code == 404
    other_key = part_token(
        secret, **{**fields, "key": "uploads/elsewhere.csv"}, part_number=1, expires_at=int(time.time()) + 60
    )
    assert put(f"{prefix}/{other_key}", b"data").status_code == 404
    # The genuine link still works, and only for its own part number.
    sent = put(link, b"data")
    assert sent.status_code == 200
    answer = complete(tables_world, upload, {"2": sent.headers["ETag"]})
    assert answer.status_code == 400 and "Part(s) 2 were not uploaded" in answer.json()["errors"][0]


def test_uploads_belong_to_the_callers_company(tables_world: Tables) -> None:
    upload = initiate(tables_world)
    ref = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"]}
    outsider = tables_world.outsider_client
    for operation, extra in (
        ("multipart-part-urls", {"partNumbers": [1]}),
        ("multipart-complete", {"partETags": {"1": '"x"'}}),
    ):
        answer = call(tables_world.client, outsider, operation, {**ref, **extra})
        assert answer.status_code == 404, answer.text
        assert answer.json() == {"errors": [f"Upload {upload['uploadId']} not found"]}
        unknown = call(
            tables_world.client, tables_world.admin_client, operation, {**ref, "uploadId": "f" * 32, **extra}
        )
        assert unknown.status_code == 404
        wrong_key = call(
            tables_world.client,
            tables_world.admin_client,
            operation,
            {**ref, "s3Key": "uploads/x.csv", **extra},
        )
        assert wrong_key.status_code == 400 and "s3Key" in wrong_key.json()["errors"][0]
    # A colleague in the same company may go on with it.
    assert (
        call(
            tables_world.client,
            tables_world.member_client,
            "multipart-part-urls",
            {**ref, "partNumbers": [1]},
        ).status_code
        == 200
    )


def test_bad_input_and_missing_keys(tables_world: Tables) -> None:
    client, key = tables_world.client, tables_world.admin_client
    assert client.post(f"{BASE}/multipart-initiate", json={"fileName": "a.csv"}).status_code == 401
    assert call(client, "svck_wrong", "multipart-initiate", {"fileName": "a.csv"}).status_code == 401
    for body in ({}, {"fileName": ""}, {"fileName": "a.csv", "extra": 1}):
        assert call(client, key, "multipart-initiate", body).status_code == 400
    upload = initiate(tables_world)
    ref = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"]}
    for numbers in ([], [0], [10_001], [1, 1], ["x"]):
        answer = call(client, key, "multipart-part-urls", {**ref, "partNumbers": numbers})
        assert answer.status_code == 400, (numbers, answer.text)
    answer = call(client, key, "multipart-part-urls", {**ref, "partNumbers": [10_000]})
    assert set(answer.json()["partUrls"]) == {"10000"}


@contextmanager
def running(tmp_path: Path, kafka_bootstrap: str, **overrides: object) -> Iterator[tuple[Ingress, Settings]]:
    settings = make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, **overrides)
    with migrated(settings):
        server = ServedIngress(settings)
        server.start()
        try:
            yield server, settings
        finally:
            server.stop()


def test_a_part_over_the_part_limit_is_refused(tmp_path: Path, kafka_bootstrap: str) -> None:
    with running(tmp_path, kafka_bootstrap, upload_max_part_bytes=MIN_PART_BYTES) as (server, _):
        with migrated(server.settings) as db:
            company = db.create_company()
        answer = call(server.client, company.client_api_key, "multipart-initiate", {"fileName": "big.csv"})
        upload = answer.json()
        body = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"], "partNumbers": [1, 2]}
        links = call(server.client, company.client_api_key, "multipart-part-urls", body).json()["partUrls"]
        refused = put(links["1"], b"z" * (MIN_PART_BYTES + 1))
        assert refused.status_code == 413 and str(MIN_PART_BYTES) in refused.json()["errors"][0]
        exact = put(links["2"], b"z" * MIN_PART_BYTES)
        assert exact.status_code == 200
        ref = {"uploadId": upload["uploadId"], "s3Key": upload["s3Key"]}
        missing = call(
            server.client,
            company.client_api_key,
            "multipart-complete",
            {**ref, "partETags": {"1": exact.headers["ETag"]}},
        )
        assert missing.status_code == 400 and "Part(s) 1 were not uploaded" in missing.json()["errors"][0]
