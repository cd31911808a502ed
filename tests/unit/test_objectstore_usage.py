"""The object store's bytes by area and company: keys split into (area, company), summed; the local store's
listing of every object's size (an assembled multipart object counts once, staging never)."""

from pathlib import Path

import pytest

from sinks.objectstore import MIN_PART_BYTES, InvalidKey
from sinks.objectstore.local import LocalObjectStore
from sinks.objectstore.usage import area_of, object_usage, tally

pytestmark = pytest.mark.unit


def test_a_key_names_its_area_and_company() -> None:
    assert area_of("results/c1/j.parquet") == ("results", "c1")
    assert area_of("uploads/c1/u/deep/a.csv") == ("uploads", "c1")
    assert area_of("results/loose.parquet") == ("results", None)
    assert area_of("top.txt") == ("", None)


def test_sizes_are_summed_per_area_and_company_most_bytes_first() -> None:
    found = tally([("results/c1/a", 5), ("results/c2/b", 9), ("results/c1/c", 1), ("uploads/c1/u/x", 2)])
    assert [(u.area, u.company_id, u.objects, u.bytes) for u in found] == [
        ("results", "c2", 1, 9),
        ("results", "c1", 2, 6),
        ("uploads", "c1", 1, 2),
    ]
    assert tally([]) == []


@pytest.fixture
def store(tmp_path: Path) -> LocalObjectStore:
    store = LocalObjectStore(tmp_path, "svc-local")
    store.put_bytes("results/c1/j.parquet", b"x" * 10)
    store.put_bytes("results/c2/j.parquet", b"x" * 20)
    store.put_bytes("uploads/c1/u1/a.csv", b"x" * 3)
    key = "uploads/c1/u2/big.csv"
    upload = store.initiate_multipart(key)
    etags = {
        1: store.put_part(key, upload, 1, b"a" * MIN_PART_BYTES),
        2: store.put_part(key, upload, 2, b"b"),
    }
    store.complete_multipart(key, upload, etags)
    open_upload = store.initiate_multipart("uploads/c1/u3/half.csv")
    store.put_part("uploads/c1/u3/half.csv", open_upload, 1, b"c" * 100)  # not an object yet
    return store


def test_the_local_store_lists_every_object_with_its_size(store: LocalObjectStore) -> None:
    assert list(store.sizes()) == [
        ("results/c1/j.parquet", 10),
        ("results/c2/j.parquet", 20),
        ("uploads/c1/u1/a.csv", 3),
        ("uploads/c1/u2/big.csv", MIN_PART_BYTES + 1),
    ]
    assert list(store.sizes("results/c2/")) == [("results/c2/j.parquet", 20)]
    assert list(store.sizes("nothing/")) == []
    assert store.top_level() == ["results", "uploads"]


def test_one_company_is_listed_area_by_area(store: LocalObjectStore) -> None:
    found = object_usage(store, "c1")
    assert [(u.area, u.company_id, u.objects, u.bytes) for u in found] == [
        ("results", "c1", 1, 10),
        ("uploads", "c1", 2, MIN_PART_BYTES + 4),
    ]
    assert [(u.area, u.company_id) for u in object_usage(store)] == [
        ("results", "c2"),
        ("results", "c1"),
        ("uploads", "c1"),
    ]
    for bad in ("a/b", "..", ""):
        with pytest.raises(InvalidKey):
            object_usage(store, bad)
