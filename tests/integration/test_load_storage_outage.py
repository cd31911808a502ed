"""A bulk load while S3 (moto's server, reached through a port the test closes) cannot be reached: the
request is refused with 503 ``STORAGE_UNAVAILABLE`` and ``Retry-After`` and records nothing; a load accepted
before S3 went away ends ``FAILED`` with the same clear reason and leaves its table as it was. Once S3 is
back the same load goes through."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from ingress.errors import STORAGE_RETRY_AFTER_SECONDS
from schemas.settings import Settings
from sinks.db.models import Job
from tests.fixtures.s3 import S3Port
from tests.fixtures.tables import Tables
from tests.integration import outage_helpers
from tests.integration.analytics.test_loads import HEADER, csv_rows, finished, load, upload
from tests.integration.outage_helpers import gateway
from tests.integration.test_s3_complete import S3Worker, metadata_location

__all__ = ["gateway"]  # a fixture

pytestmark = pytest.mark.integration

SECRET_KEY = "load-outage-secret-0123456789"
UNREACHABLE = "The upload storage is unavailable: the S3 service could not be reached"
ROWS = 50


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with outage_helpers.module_s3("svc-load-outage-seed", SECRET_KEY) as endpoint:
        yield endpoint


@pytest.fixture
def warehouse_on_s3() -> bool:
    return True


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, gateway: S3Port, warehouse_on_s3: bool) -> Settings:
    """Replaces the stack's settings: the object store (and the warehouse, unless the test says not) on S3."""
    return outage_helpers.s3_settings(
        tmp_path / "data", kafka_bootstrap, gateway.endpoint, warehouse_on_s3=warehouse_on_s3
    )


def jobs_of(world: Tables) -> int:
    with world.db.sessions() as session:
        return int(session.scalar(select(func.count()).where(Job.company_id == world.company_id)) or 0)


def test_a_load_requested_while_s3_is_unreachable_is_refused_and_records_nothing(
    tables_world: Tables, gateway: S3Port, kafka_settings: Settings
) -> None:
    table_id = tables_world.create()
    uri = upload(tables_world, "orders.csv", (HEADER + csv_rows(1, ROWS)).encode())

    gateway.close()
    refused = tables_world.analytics("load-from-s3", table_id, {"sourceUris": [uri]})
    assert refused.status_code == 503, refused.text
    assert refused.headers.get("Retry-After") == str(STORAGE_RETRY_AFTER_SECONDS)
    assert refused.json() == {
        "errorCode": "STORAGE_UNAVAILABLE",
        "errors": [UNREACHABLE],
        "hint": f"Nothing was changed; retry in {STORAGE_RETRY_AFTER_SECONDS} seconds",
    }
    for internal in (gateway.endpoint, str(kafka_settings.object_store).removeprefix("s3://").split("/")[0]):
        assert internal not in refused.text
    assert jobs_of(tables_world) == 0  # no job, and nothing counted against the daily load allowance

    gateway.open()
    accepted = load(tables_world, table_id, {"sourceUris": [uri]})
    assert accepted["state"] == "QUEUED"
    assert jobs_of(tables_world) == 1


@pytest.mark.parametrize("warehouse_on_s3", [False])
def test_a_load_whose_files_become_unreachable_fails_clearly_and_changes_nothing(
    tables_world: Tables, gateway: S3Port, kafka_settings: Settings, tmp_path: Path
) -> None:
    """The warehouse is on the local disk, so the load reaches its table and only its files are away."""
    table_id = tables_world.create()
    uri = upload(tables_world, "orders.csv", (HEADER + csv_rows(1, ROWS)).encode())
    job_id = load(tables_world, table_id, {"sourceUris": [uri]})["jobId"]  # accepted: no worker runs yet
    before = metadata_location(tables_world.db, tables_world.company_id, table_id)
    table_folder = Path(before.removeprefix("file://")).parent.parent

    gateway.close()
    loader = S3Worker(
        kafka_settings, tmp_path / "worker.log", SVC_WAREHOUSE=kafka_settings.resolved_warehouse
    )
    loader.start()
    try:
        status = finished(tables_world, table_id, job_id)
        assert status["state"] == "FAILED", status
        assert status["error"] == {
            "errorCode": "STORAGE_UNAVAILABLE",
            "message": UNREACHABLE,
            "hint": "Nothing was loaded; load again once the storage is reachable",
        }
        assert metadata_location(tables_world.db, tables_world.company_id, table_id) == before
        assert not list((table_folder / "data").glob("**/*.parquet"))

        gateway.open()
        again = finished(tables_world, table_id, load(tables_world, table_id, {"sourceUris": [uri]})["jobId"])
        assert again["state"] == "SUCCEEDED" and again["rowsLoaded"] == ROWS, again
    finally:
        loader.stop()
