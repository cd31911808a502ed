"""The local store lists old objects as S3 does: by prefix, in key order, bounded, from a given key on."""

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sinks.objectstore import MIN_PART_BYTES
from sinks.objectstore.assembled import MANIFEST
from sinks.objectstore.local import LocalObjectStore

pytestmark = pytest.mark.unit

OLD = datetime(2024, 1, 1, tzinfo=UTC)
CUTOFF = datetime(2025, 1, 1, tzinfo=UTC)
FRESH = datetime(2026, 1, 1, tzinfo=UTC)


def put(store: LocalObjectStore, key: str, modified: datetime) -> None:
    store.put_bytes(key, b"x")
    os.utime(store.root / key, (modified.timestamp(), modified.timestamp()))


@pytest.fixture
def store(tmp_path: Path) -> LocalObjectStore:
    store = LocalObjectStore(tmp_path, "svc-local")
    put(store, "results/c2/j1.parquet", OLD)
    put(store, "results/c1/j2.parquet", OLD)
    put(store, "results/c1/j3.parquet", FRESH)
    put(store, "results/c1-x.parquet", OLD)  # sorts before results/c1/... as in S3 ("-" < "/")
    put(store, "uploads/c1/a.csv", OLD)
    return store


def test_only_old_objects_under_the_prefix_are_listed_in_key_order(store: LocalObjectStore) -> None:
    assert store.list_older("results/", CUTOFF, 10) == [
        "results/c1-x.parquet",
        "results/c1/j2.parquet",
        "results/c2/j1.parquet",
    ]
    assert store.list_older("results/c1/", CUTOFF, 10) == ["results/c1/j2.parquet"]
    assert store.list_older("results/c1", CUTOFF, 10) == ["results/c1-x.parquet", "results/c1/j2.parquet"]
    assert store.list_older("results/", OLD, 10) == []
    assert store.list_older("missing/", CUTOFF, 10) == []


def test_pages_go_on_after_the_last_key(store: LocalObjectStore) -> None:
    first = store.list_older("results/", CUTOFF, 2)
    assert first == ["results/c1-x.parquet", "results/c1/j2.parquet"]
    assert store.list_older("results/", CUTOFF, 2, start_after=first[-1]) == ["results/c2/j1.parquet"]
    assert store.list_older("results/", CUTOFF, 2, start_after="results/c2/j1.parquet") == []
    assert store.list_older("results/", CUTOFF, 0) == []


def test_a_multipart_object_is_one_key_and_staging_is_never_listed(store: LocalObjectStore) -> None:
    upload = store.initiate_multipart("results/c3/big.parquet")
    etags = {
        1: store.put_part("results/c3/big.parquet", upload, 1, b"a" * MIN_PART_BYTES),
        2: store.put_part("results/c3/big.parquet", upload, 2, b"b"),
    }
    store.complete_multipart("results/c3/big.parquet", upload, etags)
    manifest = store.root / "results/c3/big.parquet" / MANIFEST
    os.utime(manifest, (OLD.timestamp(), OLD.timestamp()))
    assert store.list_older("results/c3/", CUTOFF, 10) == ["results/c3/big.parquet"]
    store.initiate_multipart("results/c4/staged.parquet")
    assert store.list_older(".m", FRESH.replace(year=2100), 10) == []
