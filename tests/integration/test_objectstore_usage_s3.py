"""The S3 store lists every object's size page by page and its top-level folders, as the local store does
(`svc admin storage`), on moto's S3 server (MinIO where Docker answers)."""

import pytest

from schemas.settings import Settings
from sinks.objectstore.s3 import S3ObjectStore
from sinks.objectstore.usage import object_usage
from sinks.s3_limits import S3Limits
from tests.fixtures.s3 import s3_server

pytestmark = pytest.mark.integration


def test_sizes_and_areas_on_s3(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    with s3_server(monkeypatch, "usage", "secret") as endpoint:
        store = S3ObjectStore("usage", "svc/o", endpoint=endpoint, limits=S3Limits.of(settings))
        store.put_bytes("results/c1/j.parquet", b"x" * 10)
        store.put_bytes("uploads/c1/u1/a.csv", b"x" * 3)
        store.put_bytes("uploads/c2/u2/b.csv", b"x" * 4)
        store.client.put_object(Bucket="usage", Key="elsewhere/k", Body=b"not under the store's prefix")
        assert list(store.sizes()) == [
            ("results/c1/j.parquet", 10),
            ("uploads/c1/u1/a.csv", 3),
            ("uploads/c2/u2/b.csv", 4),
        ]
        assert list(store.sizes("uploads/c2/")) == [("uploads/c2/u2/b.csv", 4)]
        assert store.top_level() == ["results", "uploads"]
        found = object_usage(store, "c1")
        assert [(u.area, u.company_id, u.objects, u.bytes) for u in found] == [
            ("results", "c1", 1, 10),
            ("uploads", "c1", 1, 3),
        ]


def test_a_listing_longer_than_a_page(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    with s3_server(monkeypatch, "paged", "secret") as endpoint:
        store = S3ObjectStore("paged", "", endpoint=endpoint, limits=S3Limits.of(settings))
        for index in range(1_005):  # S3 answers at most 1,000 keys a page
            store.put_bytes(f"results/c1/{index:05d}", b"y")
        listed = list(store.sizes())
        assert len(listed) == 1_005 and listed[-1] == ("results/c1/01004", 1)
        assert store.top_level() == ["results"]
