"""Table maintenance on an ``s3://`` warehouse (moto's S3 server): compaction keeps every row, expiry and
orphan removal delete the objects nothing needs any more, and only those."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from schemas.maintenance import MaintenanceAction
from schemas.settings import Settings
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.maintenance import maintain
from tests.fixtures.s3 import s3_server
from tests.integration.tables.maintenance_helpers import LIMITS, append, checksum, later, make_table

pytestmark = pytest.mark.integration

BUCKET = "svc-maintenance-test"
SECRET_KEY = "maintenance-test-secret-0123456789"


@pytest.fixture
def s3_catalog(tmp_path: Path) -> Iterator[tuple[SqlCatalog, str]]:
    with pytest.MonkeyPatch.context() as patch, s3_server(patch, BUCKET, SECRET_KEY) as endpoint:
        settings = Settings(data_dir=tmp_path, warehouse=f"s3://{BUCKET}/lake/", s3_endpoint=endpoint)
        properties = iceberg.storage_properties(settings)
        catalog = iceberg.make_catalog(
            f"sqlite:///{tmp_path / 'catalog.db'}", settings.resolved_warehouse, **properties
        )
        yield catalog, endpoint
        catalog.engine.dispose()


def objects(endpoint: str) -> set[str]:
    client = boto3.client("s3", endpoint_url=endpoint)
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
    return {entry["Key"] for page in pages for entry in page.get("Contents", [])}


def test_compaction_expiry_and_orphans_on_s3(s3_catalog: tuple[SqlCatalog, str]) -> None:
    catalog, endpoint = s3_catalog
    table = make_table(catalog)
    for n in range(6):
        append(table, n * 10, 10)
    before = checksum(table)
    stray = "lake/" + table.location().split("/lake/", 1)[1] + "/data/killed-load.parquet"
    boto3.client("s3", endpoint_url=endpoint).put_object(Bucket=BUCKET, Key=stray, Body=b"z" * 500)

    compacted = maintain(table, [MaintenanceAction.COMPACT], LIMITS, now=datetime.now(UTC), dry_run=False)
    assert (compacted.files_before, compacted.files_after) == (18, 3)
    assert checksum(table) == before

    # Within the orphan age the stray object stays; past the retention the old snapshots go.
    listed = objects(endpoint)
    young = maintain(table, list(MaintenanceAction), LIMITS, now=datetime.now(UTC), dry_run=False)
    assert young.snapshots_expired == 0 and young.orphans_removed == 0 and objects(endpoint) == listed
    expire = [MaintenanceAction.EXPIRE_SNAPSHOTS]
    expired = maintain(table, expire, LIMITS, now=later(8), dry_run=False)
    assert expired.snapshots_expired == 6 and expired.bytes_reclaimed > 0
    assert stray in objects(endpoint) and len(objects(endpoint)) < len(listed)
    assert checksum(table) == before

    # Three days later (the orphan age), nothing names the stray object: it goes, and only it.
    kept = objects(endpoint) - {stray}
    orphans = [MaintenanceAction.REMOVE_ORPHANS]
    report = maintain(table, orphans, LIMITS, now=datetime.now(UTC) + timedelta(hours=73), dry_run=False)
    assert (report.orphans_removed, report.bytes_reclaimed) == (1, 500)
    assert stray not in objects(endpoint) and kept <= objects(endpoint)
    assert checksum(table) == before
