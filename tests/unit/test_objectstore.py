import hashlib
import io
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from schemas.settings import Settings
from sinks.objectstore import (
    MIN_PART_BYTES,
    InvalidKey,
    InvalidPart,
    NoSuchKey,
    NoSuchUpload,
    ObjectStore,
    PartTooSmall,
    object_store,
)
from sinks.objectstore.local import LocalObjectStore

pytestmark = pytest.mark.unit


@pytest.fixture
def store(tmp_path: Path) -> ObjectStore:
    return object_store(Settings(data_dir=tmp_path))


def test_default_store_is_a_local_folder_with_the_local_bucket(tmp_path: Path) -> None:
    store = object_store(Settings(data_dir=tmp_path))
    assert isinstance(store, LocalObjectStore)
    assert store.root == (tmp_path / "objects").resolve()
    assert store.uri("uploads/c1/a.csv") == "s3://svc-local/uploads/c1/a.csv"
    named = object_store(Settings(data_dir=tmp_path, object_store_bucket="acme-data"))
    assert named.uri("k") == "s3://acme-data/k"


def test_objects_round_trip(store: ObjectStore) -> None:
    store.put_bytes("a/b/c.txt", b"hello")
    assert store.exists("a/b/c.txt") and store.size("a/b/c.txt") == 5
    assert store.get_bytes("a/b/c.txt") == b"hello"
    store.put_bytes("a/b/c.txt", b"again")
    assert store.get_bytes("a/b/c.txt") == b"again"
    store.delete("a/b/c.txt")
    store.delete("a/b/c.txt")
    assert not store.exists("a/b/c.txt")
    with pytest.raises(NoSuchKey):
        store.get_bytes("a/b/c.txt")
    with pytest.raises(FileNotFoundError):
        store.size("a/b/c.txt")


def test_delete_prefix_removes_only_what_starts_with_it(store: ObjectStore) -> None:
    for key in ("r/c1/j1.parquet", "r/c1/j2.parquet", "r/c1x/j3.parquet", "r/c2/j4.parquet"):
        store.put_bytes(key, b"x")
    assert store.delete_prefix("r/c1/") == 2
    assert not store.exists("r/c1/j1.parquet") and store.exists("r/c1x/j3.parquet")
    assert store.delete_prefix("r/c") == 2
    assert store.delete_prefix("nothing/") == 0


@pytest.mark.parametrize(
    "key", ["", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "a/", "a\\b", ".multipart/u/1", "a\x00b"]
)
def test_unsafe_keys_are_refused(store: ObjectStore, key: str) -> None:
    with pytest.raises(InvalidKey):
        store.put_bytes(key, b"x")
    with pytest.raises(ValueError, match="key"):
        store.exists(key)


def test_uri_and_key_of_are_inverse(store: ObjectStore) -> None:
    assert store.key_of(store.uri("uploads/c/u/f.csv")) == "uploads/c/u/f.csv"
    for foreign in (
        "s3://other/uploads/x.csv",
        "s3://svc-local/../x",
        "s3://svc-local/",
        "file:///srv/x",
        "s3://svc-local",
    ):
        assert store.key_of(foreign) is None


def test_arrow_filesystem_writes_and_reads_keys(store: ObjectStore) -> None:
    filesystem, base = store.arrow_filesystem()
    table = pa.table({"a": [1, 2, 3]})
    pq.write_table(table, f"{base}/results/c1/j1.parquet", filesystem=filesystem)
    assert store.exists("results/c1/j1.parquet")
    assert pq.read_table(f"{base}/results/c1/j1.parquet", filesystem=filesystem).equals(table)


def _etag(data: bytes) -> str:
    return f'"{hashlib.sha256(data).hexdigest()[:32]}"'


def test_multipart_assembles_streamed_parts_in_order(store: ObjectStore) -> None:
    parts = {1: b"a" * MIN_PART_BYTES, 2: bytes(range(256)) * (MIN_PART_BYTES // 256 + 7), 3: b"tail"}
    upload = store.initiate_multipart("uploads/c1/u1/data.csv")
    etags = {}
    for number in (3, 1, 2):
        etags[number] = store.put_part("uploads/c1/u1/data.csv", upload, number, io.BytesIO(parts[number]))
        assert etags[number] == _etag(parts[number])
    store.complete_multipart("uploads/c1/u1/data.csv", upload, etags)
    assert store.get_bytes("uploads/c1/u1/data.csv") == parts[1] + parts[2] + parts[3]
    with pytest.raises(NoSuchUpload):
        store.complete_multipart("uploads/c1/u1/data.csv", upload, etags)
    with pytest.raises(NoSuchUpload):
        store.put_part("uploads/c1/u1/data.csv", upload, 1, b"late")


def test_a_part_sent_again_replaces_the_first(store: ObjectStore) -> None:
    upload = store.initiate_multipart("k.bin")
    first = store.put_part("k.bin", upload, 1, b"first")
    second = store.put_part("k.bin", upload, 1, b"second")
    with pytest.raises(InvalidPart, match="ETag"):
        store.complete_multipart("k.bin", upload, {1: first})
    store.complete_multipart("k.bin", upload, {1: second.strip('"')})
    assert store.get_bytes("k.bin") == b"second"


def test_refused_completions_change_nothing(store: ObjectStore) -> None:
    key = "uploads/c1/u2/x.parquet"
    upload = store.initiate_multipart(key)
    small = store.put_part(key, upload, 1, b"x" * 1000)
    last = store.put_part(key, upload, 2, b"y")
    with pytest.raises(InvalidPart, match=r"Part\(s\) 3 were not uploaded"):
        store.complete_multipart(key, upload, {1: small, 2: last, 3: last})
    with pytest.raises(InvalidPart, match="ETag of part"):
        store.complete_multipart(key, upload, {1: small, 2: small})
    with pytest.raises(PartTooSmall, match="minimum"):
        store.complete_multipart(key, upload, {1: small, 2: last})
    with pytest.raises(InvalidPart):
        store.complete_multipart(key, upload, {})
    with pytest.raises(InvalidPart):
        store.put_part(key, upload, 10_001, b"x")
    assert not store.exists(key)
    # Still open: a smaller completion of the same parts succeeds.
    store.complete_multipart(key, upload, {1: small})
    assert store.get_bytes(key) == b"x" * 1000


def test_an_upload_is_bound_to_its_key_and_abort_removes_it(store: ObjectStore) -> None:
    upload = store.initiate_multipart("a.csv")
    with pytest.raises(NoSuchUpload):
        store.put_part("b.csv", upload, 1, b"x")
    with pytest.raises(NoSuchUpload):
        store.put_part("a.csv", "../../etc", 1, b"x")
    store.put_part("a.csv", upload, 1, b"x")
    store.abort_multipart("a.csv", upload)
    with pytest.raises(NoSuchUpload):
        store.put_part("a.csv", upload, 1, b"x")
    assert store.presigned_part_url("a.csv", upload, 1, 60) is None


def _completed(store: ObjectStore, key: str, parts: list[bytes]) -> None:
    upload = store.initiate_multipart(key)
    etags = {n: store.put_part(key, upload, n, data) for n, data in enumerate(parts, start=1)}
    store.complete_multipart(key, upload, etags)


def test_a_multipart_object_keeps_its_parts_and_reads_as_one_file(tmp_path: Path) -> None:
    store = LocalObjectStore(tmp_path / "objects", "b")
    parts = [bytes([n]) * MIN_PART_BYTES for n in (1, 2)] + [b"tail"]
    whole = b"".join(parts)
    _completed(store, "uploads/c1/u1/f.bin", parts)
    folder = tmp_path / "objects" / "uploads/c1/u1/f.bin"
    assert folder.is_dir()  # no second copy of the data was written
    assert store.exists("uploads/c1/u1/f.bin") and store.size("uploads/c1/u1/f.bin") == len(whole)
    assert store.get_bytes("uploads/c1/u1/f.bin") == whole
    assert not list((tmp_path / "objects" / ".multipart").iterdir())
    filesystem, base = store.arrow_filesystem()
    info = filesystem.get_file_info(f"{base}/uploads/c1/u1/f.bin")
    assert info.type == pa.fs.FileType.File and info.size == len(whole)
    with filesystem.open_input_stream(f"{base}/uploads/c1/u1/f.bin") as stream:
        assert stream.read() == whole
    with filesystem.open_input_file(f"{base}/uploads/c1/u1/f.bin") as handle:
        # Reads that start in one part and end in the next, and seeks back and forth.
        handle.seek(MIN_PART_BYTES - 3)
        assert handle.read(6) == b"\x01" * 3 + b"\x02" * 3
        assert handle.read_at(8, 2 * MIN_PART_BYTES - 4) == b"\x02" * 4 + b"tail"
        assert handle.size() == len(whole)
    assert store.delete_prefix("uploads/c1/") == 1
    assert not store.exists("uploads/c1/u1/f.bin")


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="page cache advice is POSIX only")
def test_parts_leave_the_page_cache_once_written_or_read_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts are written around the page cache and a reader drops each part it has read to the end (and
    only those): the advice goes to the kernel, so it is recorded here by file name."""
    dropped: list[str] = []
    advise = os.posix_fadvise

    def recording(fd: int, offset: int, length: int, advice: int) -> None:
        if advice == os.POSIX_FADV_DONTNEED:
            dropped.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        advise(fd, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", recording)
    store = LocalObjectStore(tmp_path / "objects", "b")
    _completed(store, "u/f.csv", [b"a" * MIN_PART_BYTES, b"b" * MIN_PART_BYTES, b"c"])
    assert len(dropped) == 3 and all(".tmp" in name for name in dropped)  # each part as it was written
    dropped.clear()
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_file(f"{base}/u/f.csv") as handle:
        handle.read(MIN_PART_BYTES + 10)  # the first part read through, the second begun
        assert [name.split("-")[0] for name in dropped] == ["1"]
        handle.seek(0)
        handle.read(5)  # back to the first part: the second was not read to its end, so it stays
        assert [name.split("-")[0] for name in dropped] == ["1"]
    dropped.clear()
    with filesystem.open_input_file(f"{base}/u/f.csv") as handle:
        handle.read(5)
        handle.seek(2 * MIN_PART_BYTES)  # past the rest of the first part, unread: it stays cached
        assert handle.read(1) == b"c"
    assert [name.split("-")[0] for name in dropped] == ["3"]
    assert store.get_bytes("u/f.csv")[-1:] == b"c"
    assert {name.split("-")[0] for name in dropped} == {"1", "2", "3"}


def test_a_parquet_file_uploaded_in_parts_reads_with_random_access(tmp_path: Path) -> None:
    store = LocalObjectStore(tmp_path / "objects", "b")
    sink = io.BytesIO()
    table = pa.table({"n": list(range(300_000)), "s": [f"row {i}" for i in range(300_000)]})
    pq.write_table(table, sink, compression="none", row_group_size=50_000)
    data = sink.getvalue()
    assert len(data) > MIN_PART_BYTES
    _completed(store, "u/t.parquet", [data[:MIN_PART_BYTES], data[MIN_PART_BYTES:]])
    filesystem, base = store.arrow_filesystem()
    assert pq.read_table(f"{base}/u/t.parquet", filesystem=filesystem).equals(table)


def test_objects_replace_each_other_whatever_their_kind(store: ObjectStore) -> None:
    parts = [b"a" * MIN_PART_BYTES, b"b"]
    store.put_bytes("k.csv", b"plain")
    _completed(store, "k.csv", parts)
    assert store.get_bytes("k.csv") == b"".join(parts)
    _completed(store, "k.csv", [b"c" * MIN_PART_BYTES, b"d"])
    assert store.get_bytes("k.csv") == b"c" * MIN_PART_BYTES + b"d"
    _completed(store, "k.csv", [b"single"])
    assert store.get_bytes("k.csv") == b"single"
    _completed(store, "k.csv", parts)
    store.put_bytes("k.csv", b"plain again")
    assert store.get_bytes("k.csv") == b"plain again" and store.size("k.csv") == 11
    _completed(store, "k.csv", parts)
    store.delete("k.csv")
    assert not store.exists("k.csv")
    with pytest.raises(NoSuchKey):
        store.get_bytes("k.csv")
