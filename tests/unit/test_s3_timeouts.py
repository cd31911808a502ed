"""The S3 timeouts and attempts (SVC_S3_CONNECT_TIMEOUT_SECONDS, SVC_S3_READ_TIMEOUT_SECONDS,
SVC_S3_MAX_ATTEMPTS) reach every S3 client the service makes: boto3's Config (object store, bucket check),
the object store's Arrow filesystem, pyiceberg's FileIO and DuckDB's httpfs. And S3 failing a call by not
answering is storage unavailable, told apart from a call S3 refused. No S3 is contacted here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.fs
import pytest
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from pydantic import ValidationError
from pyiceberg.io.pyarrow import PyArrowFileIO, _import_retry_strategy

from schemas.settings import Settings
from sinks import s3_limits
from sinks.duckdb_engine import S3Access, connect, s3_access_for
from sinks.iceberg.catalog import storage_properties
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.loads.uploaded import _s3_client_failure, uploaded_size
from sinks.objectstore import StoreUnavailable, object_store
from sinks.objectstore.local import LocalObjectStore
from sinks.objectstore.s3 import S3ObjectStore, s3_client
from sinks.objectstore.s3_failures import reachable, unavailable_reason
from sinks.s3_limits import S3Limits
from sinks.s3_session import new_session

pytestmark = pytest.mark.unit

ENDPOINT = "http://127.0.0.1:9"  # nothing here is called
TIGHT: dict[str, Any] = {
    "s3_connect_timeout_seconds": 0.5,
    "s3_read_timeout_seconds": 1.5,
    "s3_max_attempts": 2,
}


@pytest.fixture(autouse=True)
def aws_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key in the environment, so no credential provider goes looking for an instance role."""
    for name, value in (("AWS_ACCESS_KEY_ID", "test-key"), ("AWS_SECRET_ACCESS_KEY", "test-secret")):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def tight(tmp_path: Path, **more: Any) -> Settings:
    return Settings(data_dir=tmp_path, s3_endpoint=ENDPOINT, **TIGHT, **more)


def test_the_defaults_and_the_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert S3Limits.of(Settings(data_dir=tmp_path)) == S3Limits(5.0, 30.0, 3)
    monkeypatch.setenv("SVC_S3_CONNECT_TIMEOUT_SECONDS", "0.5")
    monkeypatch.setenv("SVC_S3_READ_TIMEOUT_SECONDS", "1")
    monkeypatch.setenv("SVC_S3_MAX_ATTEMPTS", "2")
    assert S3Limits.of(Settings(data_dir=tmp_path)) == S3Limits(0.5, 1.0, 2)


@pytest.mark.parametrize(
    "bad",
    [
        {"s3_connect_timeout_seconds": 0},
        {"s3_read_timeout_seconds": -1},
        {"s3_max_attempts": 0},
        {"s3_max_attempts": s3_limits.MAX_ATTEMPTS + 1},
    ],
)
def test_out_of_range_limits_are_refused(tmp_path: Path, bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Settings(data_dir=tmp_path, **bad)


def test_every_allowed_attempt_count_has_a_retry_strategy_pyiceberg_can_load(tmp_path: Path) -> None:
    """pyiceberg calls the dotted name with no arguments; a name that does not resolve only warns (and the
    FileIO then keeps pyarrow's own attempts), so each one is loaded here the way pyiceberg does."""
    assert S3Limits.of(Settings(data_dir=tmp_path, s3_max_attempts=s3_limits.MAX_ATTEMPTS)).max_attempts == 10
    for attempts in range(1, s3_limits.MAX_ATTEMPTS + 1):
        name = S3Limits(1, 1, attempts).fileio_properties()[s3_limits.RETRY_STRATEGY]
        strategy = _import_retry_strategy(name)
        assert isinstance(strategy, pyarrow.fs.AwsStandardS3RetryStrategy)
        assert strategy.max_attempts == attempts


def test_the_object_stores_boto_client(tmp_path: Path) -> None:
    store = object_store(tight(tmp_path, object_store="s3://objects/svc"))
    assert isinstance(store, S3ObjectStore)
    config = store.client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (0.5, 1.5)
    assert config.retries == {"total_max_attempts": 2, "mode": "standard"}
    assert config.s3 == {"addressing_style": "path"}


def test_any_client_made_with_the_limits(tmp_path: Path) -> None:
    """The bucket check at start-up makes its client this way, with the settings' limits."""
    limits = S3Limits.of(tight(tmp_path))
    config = s3_client(new_session("us-east-1"), None, limits).meta.config
    assert (config.connect_timeout, config.read_timeout, config.retries["total_max_attempts"]) == (
        0.5,
        1.5,
        2,
    )


def test_the_object_stores_arrow_filesystem(tmp_path: Path) -> None:
    store = object_store(tight(tmp_path, object_store="s3://objects/svc"))
    filesystem, base = store.arrow_filesystem()
    options = filesystem.__reduce__()[1][0]
    assert (options["connect_timeout"], options["request_timeout"], base) == (0.5, 1.5, "objects/svc")
    assert S3Limits(0.5, 1.5, 2).arrow_options()["retry_strategy"].max_attempts == 2


def test_the_warehouse_file_io(tmp_path: Path) -> None:
    properties = storage_properties(tight(tmp_path, warehouse="s3://lake/w"))
    assert {key: properties[key] for key in ("s3.connect-timeout", "s3.request-timeout")} == {
        "s3.connect-timeout": "0.5",
        "s3.request-timeout": "1.5",
    }
    filesystem = PyArrowFileIO(properties).fs_by_scheme("s3", "lake")
    options = filesystem.__reduce__()[1][0]
    assert (options["connect_timeout"], options["request_timeout"]) == (0.5, 1.5)
    strategy = _import_retry_strategy(properties["s3.retry-strategy-impl"])
    assert strategy is not None and strategy.max_attempts == 2
    assert storage_properties(Settings(data_dir=tmp_path, **TIGHT)) == {}  # a local warehouse has none


def test_duckdb_reads_the_warehouse_with_the_same_limits(tmp_path: Path) -> None:
    properties = storage_properties(tight(tmp_path, warehouse="s3://lake/w"))
    access = s3_access_for("s3://lake/w/c_x/t_y/metadata/1.json", properties)
    assert access is not None and access.limits == S3Limits(0.5, 1.5, 2)
    # One timeout in whole seconds for connecting and reading (the longer, rounded up); retries, not attempts.
    assert access.settings_sql() == ["SET http_timeout = 2", "SET http_retries = 1"]
    with connect(threads=1, memory_limit="64MB", s3=access) as connection:
        settings = dict(
            connection.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN ('http_timeout', 'http_retries')"
            ).fetchall()
        )
    assert settings == {"http_timeout": "2", "http_retries": "1"}
    assert S3Access(region="us-east-1").settings_sql() == []  # no limits given: DuckDB's own


def test_a_silent_or_unreachable_s3_is_unavailable_and_a_refusal_is_not() -> None:
    url = "http://10.0.0.9:9000/objects/svc/uploads/x"
    assert unavailable_reason(ConnectTimeoutError(endpoint_url=url)) == "the S3 service could not be reached"
    assert (
        unavailable_reason(EndpointConnectionError(endpoint_url=url)) == "the S3 service could not be reached"
    )
    assert unavailable_reason(ReadTimeoutError(endpoint_url=url)) == "the S3 service did not answer in time"
    assert (
        unavailable_reason(ConnectionClosedError(endpoint_url=url))
        == "the S3 service broke off the connection"
    )
    for code, reason in (
        ("SlowDown", "throttling requests"),
        ("503", "unavailable"),
        ("InternalError", "unavailable"),
    ):
        error = ClientError({"Error": {"Code": code}}, "PutObject")
        assert unavailable_reason(error) == f"the S3 service is {reason}"
    for code in ("AccessDenied", "NoSuchKey", "NoSuchUpload", "InvalidPart"):
        assert unavailable_reason(ClientError({"Error": {"Code": code}}, "PutObject")) is None
    assert _s3_client_failure(ReadTimeoutError(endpoint_url=url)) == "the S3 service did not answer in time"
    assert _s3_client_failure(ConnectTimeoutError(endpoint_url=url)) == "the S3 service could not be reached"


def test_the_store_reports_a_timeout_as_storage_unavailable_without_the_endpoint() -> None:
    @reachable
    def silent() -> None:
        raise ReadTimeoutError(endpoint_url="http://10.0.0.9:9000/objects/svc/uploads/x")

    @reachable
    def refused() -> None:
        raise ClientError({"Error": {"Code": "AccessDenied"}}, "PutObject")

    with pytest.raises(StorageUnavailable) as raised:
        silent()
    assert isinstance(raised.value, StoreUnavailable) and isinstance(raised.value.__cause__, ReadTimeoutError)
    assert str(raised.value) == "The object storage is unavailable: the S3 service did not answer in time"
    with pytest.raises(ClientError):
        refused()


class _SilentS3(LocalObjectStore):
    """``size`` fails as the S3 store's does when the service does not answer."""

    def size(self, key: str) -> int:
        raise StoreUnavailable("the S3 service did not answer in time")


def test_a_loads_source_behind_a_silent_s3_names_the_upload_storage(tmp_path: Path) -> None:
    with pytest.raises(StorageUnavailable) as raised:
        uploaded_size(_SilentS3(tmp_path, "svc-local"), "uploads/c/u/orders.csv")
    assert str(raised.value) == "The upload storage is unavailable: the S3 service did not answer in time"
