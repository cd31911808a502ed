"""The pure parts of S3 storage handling: which buckets the service needs, and table storage failures
turned into messages that name no bucket or key."""

from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.iceberg.exceptions import StorageFull, StorageUnavailable
from sinks.iceberg.storage import storage_failure, table_storage
from sinks.objectstore import ensure_buckets
from sinks.objectstore.buckets import s3_buckets

pytestmark = pytest.mark.unit

PYARROW_TEXT = (
    "When reading information for key 'lake/c_{c}/t_{t}/metadata/00001.metadata.json' in bucket 'acme-lake': "
    "AWS Error {code} during HeadObject operation: curlCode: 7, Could not connect to server"
)


def test_the_buckets_of_s3_locations(tmp_path: Path) -> None:
    both = Settings(data_dir=tmp_path, warehouse="s3://lake/w", object_store="s3://objects/o/")
    assert s3_buckets(both) == ["lake", "objects"]
    shared = Settings(data_dir=tmp_path, warehouse="s3://one/w", object_store="s3://one/o")
    assert s3_buckets(shared) == ["one"]
    assert s3_buckets(Settings(data_dir=tmp_path, object_store="s3://objects")) == ["objects"]
    assert s3_buckets(Settings(data_dir=tmp_path)) == []


def test_nothing_is_made_when_turned_off_or_local(tmp_path: Path) -> None:
    """Neither call reaches S3 (there is none here): off, or no S3 location, means no request at all."""
    off = Settings(data_dir=tmp_path, warehouse="s3://lake/w", s3_create_buckets=False)
    assert ensure_buckets(off) == []
    assert ensure_buckets(Settings(data_dir=tmp_path)) == []


def test_the_setting_reads_its_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(data_dir=tmp_path).s3_create_buckets is True
    monkeypatch.setenv("SVC_S3_CREATE_BUCKETS", "false")
    assert Settings(data_dir=tmp_path).s3_create_buckets is False


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("NETWORK_CONNECTION", "the S3 service could not be reached"),
        ("ACCESS_DENIED", "the S3 service refused the service's key"),
        ("INTERNAL_FAILURE", "the S3 service answered INTERNAL_FAILURE"),
    ],
)
def test_pyarrow_s3_errors_become_messages_without_paths(code: str, reason: str) -> None:
    error = OSError(PYARROW_TEXT.format(c="a" * 32, t="b" * 32, code=code))
    message = str(storage_failure(error))
    assert message == f"The table storage is unavailable: {reason}"
    assert "acme-lake" not in message and "a" * 32 not in message


def test_a_local_disk_error_keeps_its_reason() -> None:
    error = OSError(5, "Input/output error", "/srv/warehouse/c_x/t_y/data/f.parquet")
    assert str(storage_failure(error)) == "The table storage is unavailable: Input/output error"


def test_a_full_disk_says_the_storage_is_full() -> None:
    error = OSError(28, "No space left on device", "/srv/warehouse/c_x/t_y/data/f.parquet")
    failure = storage_failure(error)
    assert isinstance(failure, StorageFull)
    assert str(failure) == "The table storage is full"


def test_table_storage_translates_only_os_errors() -> None:
    with pytest.raises(StorageUnavailable) as raised, table_storage():
        raise FileNotFoundError(2, "No such file or directory", "/srv/warehouse/x.metadata.json")
    assert isinstance(raised.value.__cause__, FileNotFoundError)
    with pytest.raises(ValueError, match="not storage"), table_storage():
        raise ValueError("not storage")
