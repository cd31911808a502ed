"""A load's source files in an object store that cannot answer: StorageUnavailable with a message that names
no bucket, key or endpoint, told apart from a file that is missing or unreadable."""

from __future__ import annotations

from pathlib import Path

import pyarrow.fs
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from sinks.iceberg.exceptions import StorageUnavailable
from sinks.loads.exceptions import LoadFileError
from sinks.loads.read import CsvOptions, _failure, read_batches
from sinks.loads.uploaded import _s3_client_failure, uploaded_size
from sinks.objectstore.local import LocalObjectStore

pytestmark = pytest.mark.unit

PYARROW_TEXT = (
    "When reading information for key 'svc/uploads/c/u/orders.csv' in bucket 'acme-objects': "
    "AWS Error NETWORK_CONNECTION during HeadObject operation: curlCode: 7, Could not connect to server"
)


def test_the_size_of_an_upload_or_none(tmp_path: Path) -> None:
    store = LocalObjectStore(tmp_path / "objects", "svc-local")
    store.put_bytes("uploads/c/u/orders.csv", b"id\n1\n")
    assert uploaded_size(store, "uploads/c/u/orders.csv") == 5
    assert uploaded_size(store, "uploads/c/u/other.csv") is None


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("AccessDenied", "the S3 service refused the service's key"),
        ("SlowDown", "the S3 service is throttling requests"),
        ("503", "the S3 service is unavailable"),
        ("Teapot", "the S3 service answered Teapot"),
    ],
)
def test_s3_answers_that_are_not_a_missing_object(code: str, reason: str) -> None:
    error = ClientError({"Error": {"Code": code, "Message": "bucket acme-objects"}}, "HeadObject")
    assert _s3_client_failure(error) == reason


def test_an_unreachable_s3_and_other_errors() -> None:
    unreachable = EndpointConnectionError(endpoint_url="http://10.0.0.9:9000/acme-objects/svc/uploads/x")
    assert _s3_client_failure(unreachable) == "the S3 service could not be reached"
    assert _s3_client_failure(ValueError("a bug, not storage")) is None


def test_a_read_that_s3_failed_is_storage_and_any_other_is_the_file() -> None:
    failed = _failure(OSError(PYARROW_TEXT), "orders.csv: not a readable CSV file")
    assert isinstance(failed, StorageUnavailable)
    assert str(failed) == "The upload storage is unavailable: the S3 service could not be reached"
    corrupt = _failure(OSError("Invalid: CSV parse error"), "orders.csv: not a readable CSV file")
    assert isinstance(corrupt, LoadFileError) and str(corrupt) == "orders.csv: not a readable CSV file"


def test_a_missing_file_is_still_the_files_fault(tmp_path: Path) -> None:
    with pytest.raises(LoadFileError, match="file not found"):
        read_batches(pyarrow.fs.LocalFileSystem(), str(tmp_path / "none.csv"), "CSV", CsvOptions())
