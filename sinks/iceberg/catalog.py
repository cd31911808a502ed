"""The Iceberg catalog (pyiceberg's SQL catalog in the metadata DB) and table administration.

Tables are `c_<companyId>.t_<tableId>`. The service's own column definitions (JSON vs STRING, masking)
live in the table property `svc.columns`, written in the same commit as every schema change, so a table
describes itself to any process that loads it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.io import PY_IO_IMPL
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.table import Table
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    Transform,
    TruncateTransform,
    YearTransform,
)
from sqlalchemy import event
from sqlalchemy.exc import SQLAlchemyError

from schemas.column_types import (
    ColumnDef,
    ColumnKind,
    ColumnTypeError,
    is_safe_widening,
    parse_column_type,
    validate_columns,
)
from sinks.db.engine import with_postgres_connect_args
from sinks.iceberg.durable_io import DURABLE_FILE_IO
from sinks.iceberg.exceptions import CommitConflict, InvalidSchema, TableExists, TableNotFound
from sinks.iceberg.types import iceberg_schema, iceberg_type

if TYPE_CHECKING:
    from schemas.settings import Settings

CATALOG_NAME = "svc"
COLUMNS_PROPERTY = "svc.columns"
# A FileIO property (every table's FileIO gets the catalog's properties): seconds the writer holds a commit
# whose files are written before it asks the catalog to name them, for crash tests only (writer.py).
PAUSE_BEFORE_COMMIT = "svc.pause-before-commit-seconds"
# pyiceberg's own commit retry re-applies a snapshot on top of whatever won the race, which would
# append a load twice when the winner was the same load; writer.py retries after checking instead.
# Manifests are merged and old metadata files deleted because a streaming writer commits every second.
TABLE_PROPERTIES = {
    "format-version": "2",
    "commit.retry.num-retries": "0",
    "commit.manifest-merge.enabled": "true",
    "write.metadata.delete-after-commit.enabled": "true",
    "write.metadata.previous-versions-max": "100",
}

_ID = re.compile(r"^[0-9a-f]{32}$")
_TRANSFORM = re.compile(r"^(IDENTITY|YEAR|MONTH|DAY|HOUR|BUCKET\[(\d+)\]|TRUNCATE\[(\d+)\])$")
_TIME_KINDS = {ColumnKind.DATE, ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ}
_ALLOWED: dict[str, set[ColumnKind]] = {
    "IDENTITY": {
        k for k in ColumnKind if k not in (ColumnKind.STRING_LIST, ColumnKind.JSON, ColumnKind.DOUBLE)
    },
    "YEAR": _TIME_KINDS,
    "MONTH": _TIME_KINDS,
    "DAY": _TIME_KINDS,
    "HOUR": {ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ},
    "BUCKET": {ColumnKind.INT, ColumnKind.LONG, ColumnKind.DECIMAL, ColumnKind.STRING} | _TIME_KINDS,
    "TRUNCATE": {ColumnKind.INT, ColumnKind.LONG, ColumnKind.DECIMAL, ColumnKind.STRING},
}


def _busy_timeout(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def warehouse_location(warehouse: str) -> str:
    """`s3://...` as given; a local path made absolute, created, and written as a `file://` URI."""
    if "://" in warehouse:
        return warehouse
    path = Path(warehouse).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path.as_uri()


def storage_properties(settings: Settings) -> dict[str, str]:
    """pyiceberg FileIO properties for an `s3://` warehouse (none for a local one): `SVC_S3_ENDPOINT` with
    path-style URLs, the region and key from the standard AWS chain, read once when the process starts, and
    the service's S3 timeouts and attempts. Readers (DuckDB's S3 secret and settings) are built from the same
    properties."""
    if not settings.resolved_warehouse.startswith("s3://"):
        return {}
    from sinks.s3_limits import S3Limits
    from sinks.s3_session import new_session  # only an s3:// warehouse pays for importing boto3

    session = new_session()
    # boto3 itself reads only AWS_DEFAULT_REGION; AWS_REGION is what the other AWS SDKs (and compose) set.
    properties = {"s3.region": os.environ.get("AWS_REGION") or session.region_name or "us-east-1"}
    properties.update(S3Limits.of(settings).fileio_properties())
    if settings.s3_endpoint:
        properties.update({"s3.endpoint": settings.s3_endpoint, "s3.force-virtual-addressing": "false"})
    credentials = session.get_credentials()
    if credentials is not None:
        frozen = credentials.get_frozen_credentials()
        properties.update({"s3.access-key-id": frozen.access_key, "s3.secret-access-key": frozen.secret_key})
        if frozen.token:
            properties["s3.session-token"] = frozen.token
    return properties


def catalog_for(settings: Settings) -> SqlCatalog:
    """The service's catalog: in the metadata DB, over the configured warehouse and its storage access."""
    properties = storage_properties(settings)
    if settings.table_pause_before_commit_seconds:
        properties[PAUSE_BEFORE_COMMIT] = str(settings.table_pause_before_commit_seconds)
    return make_catalog(settings.resolved_database_url, settings.resolved_warehouse, **properties)


def make_catalog(database_url: str, warehouse: str, **properties: str) -> SqlCatalog:
    """The SQL catalog in the metadata DB; extra properties (e.g. `s3.endpoint`) go to pyiceberg's FileIO,
    `durable_io.DurableFileIO`: on a local warehouse it fsyncs every file before a commit names it."""
    uri = database_url
    if uri.startswith("postgresql://"):
        uri = "postgresql+psycopg://" + uri.removeprefix("postgresql://")
    if uri.startswith("postgresql"):
        # The metadata engine's connect timeout and keepalives: a vanished server fails a table call in
        # seconds instead of hanging it for the kernel's minutes.
        uri = with_postgres_connect_args(uri)
    if uri.startswith("sqlite:///"):
        Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    location = warehouse_location(warehouse)
    # Pooled connections are checked before use: after the database restarts, the first catalog call gets
    # a new connection instead of failing on one the server closed.
    properties = {"pool_pre_ping": "true", PY_IO_IMPL: DURABLE_FILE_IO, **properties}
    try:
        catalog = SqlCatalog(CATALOG_NAME, uri=uri, warehouse=location, **properties)
    except SQLAlchemyError as error:
        # Two processes starting together (ingress and worker) both see no catalog tables and both create
        # them; the loser finds them made a moment later, so a second look succeeds.
        if "already exists" not in str(error):
            raise
        catalog = SqlCatalog(CATALOG_NAME, uri=uri, warehouse=location, **properties)
    if uri.startswith("sqlite"):
        # Writers share the SQLite file with the metadata DB: wait for its lock instead of failing at once.
        event.listen(catalog.engine, "connect", _busy_timeout)
        catalog.engine.dispose()
    return catalog


def namespace_for(company_id: str) -> str:
    if not _ID.match(company_id):
        raise ValueError(f"company id must be 32 lower-case hex characters, got {company_id!r}")
    return f"c_{company_id}"


def identifier_for(company_id: str, table_id: str) -> tuple[str, str]:
    if not _ID.match(table_id):
        raise ValueError(f"table id must be 32 lower-case hex characters, got {table_id!r}")
    return (namespace_for(company_id), f"t_{table_id}")


def parse_partition_spec(columns: Sequence[ColumnDef], spec: Sequence[tuple[str, str]]) -> PartitionSpec:
    """`[(column, transform)]` with IDENTITY, YEAR, MONTH, DAY, HOUR, BUCKET[n], TRUNCATE[n]."""
    schema = iceberg_schema(columns)
    by_name = {c.name: c for c in columns}
    fields: list[PartitionField] = []
    names: set[str] = set()
    for position, (column_name, text) in enumerate(spec):
        column = by_name.get(column_name)
        if column is None:
            raise InvalidSchema(f"partition spec names unknown column {column_name!r}")
        match = _TRANSFORM.match(text.strip().upper()) if isinstance(text, str) else None
        if match is None:
            raise InvalidSchema(
                f"unknown partition transform {text!r}: "
                "use IDENTITY, YEAR, MONTH, DAY, HOUR, BUCKET[n] or TRUNCATE[n]"
            )
        name = match.group(1).split("[")[0]
        if column.type.kind not in _ALLOWED[name] or column.masked:
            what = "a masked column" if column.masked else f"{column.type} column {column_name!r}"
            raise InvalidSchema(f"partition transform {name} cannot apply to {what}")
        transform = _transform(name, int(match.group(2) or match.group(3) or 0))
        field_name = f"{column_name}_{name.lower()}"
        if field_name in names:
            raise InvalidSchema(f"partition spec repeats {name} on column {column_name!r}")
        names.add(field_name)
        source_id = schema.find_field(column_name).field_id
        fields.append(PartitionField(source_id, 1000 + position, transform, field_name))
    return PartitionSpec(*fields)


def _transform(name: str, width: int) -> Transform[Any, Any]:
    if name in ("BUCKET", "TRUNCATE") and not 1 <= width <= 1_000_000:
        raise InvalidSchema(f"{name}[n] needs n between 1 and 1000000, got {width}")
    simple: dict[str, Transform[Any, Any]] = {
        "IDENTITY": IdentityTransform(),
        "YEAR": YearTransform(),
        "MONTH": MonthTransform(),
        "DAY": DayTransform(),
        "HOUR": HourTransform(),
    }
    if name == "BUCKET":
        return BucketTransform(width)
    if name == "TRUNCATE":
        return TruncateTransform(width)
    return simple[name]


def _columns_property(columns: Sequence[ColumnDef]) -> str:
    return json.dumps(
        [{"name": c.name, "type": str(c.type), "nullable": c.nullable, "masked": c.masked} for c in columns],
        separators=(",", ":"),
    )


def table_columns(table: Table) -> list[ColumnDef]:
    """The table's user columns as the service defined them (system columns excluded)."""
    raw = json.loads(table.properties[COLUMNS_PROPERTY])
    return [ColumnDef(c["name"], parse_column_type(c["type"]), c["nullable"], c["masked"]) for c in raw]


def create_table(
    catalog: SqlCatalog,
    company_id: str,
    table_id: str,
    columns: Sequence[ColumnDef],
    partition_spec: Sequence[tuple[str, str]] = (),
) -> Table:
    try:
        validate_columns(list(columns))
    except ColumnTypeError as error:
        raise InvalidSchema(str(error)) from None
    spec = parse_partition_spec(columns, partition_spec)
    namespace, name = identifier_for(company_id, table_id)
    with contextlib.suppress(NamespaceAlreadyExistsError):
        catalog.create_namespace(namespace)
    try:
        return catalog.create_table(
            (namespace, name),
            schema=iceberg_schema(columns),
            partition_spec=spec,
            properties={**TABLE_PROPERTIES, COLUMNS_PROPERTY: _columns_property(columns)},
        )
    except TableAlreadyExistsError:
        raise TableExists(f"table {table_id} already exists") from None


def load_table(catalog: SqlCatalog, company_id: str, table_id: str) -> Table:
    try:
        return catalog.load_table(identifier_for(company_id, table_id))
    except NoSuchTableError:
        raise TableNotFound(f"table {table_id} not found") from None


def drop_table(catalog: SqlCatalog, company_id: str, table_id: str, *, purge: bool = False) -> None:
    """Remove the table from the catalog; with `purge` also delete its data and metadata files."""
    identifier = identifier_for(company_id, table_id)
    try:
        if purge:
            catalog.purge_table(identifier)
        else:
            catalog.drop_table(identifier)
    except NoSuchTableError:
        raise TableNotFound(f"table {table_id} not found") from None


def add_column(table: Table, column: ColumnDef) -> Table:
    """A new optional column: rows written before it read as null."""

    def change() -> None:
        columns = table_columns(table)
        if any(c.name == column.name for c in columns):
            raise InvalidSchema(f"column {column.name!r} already exists")
        if not column.nullable:
            raise InvalidSchema(
                f"column {column.name!r}: a column added to an existing table must be nullable"
            )
        with table.transaction() as transaction:
            with transaction.update_schema() as update:
                update.add_column(column.name, iceberg_type(column.type))
            transaction.set_properties({COLUMNS_PROPERTY: _columns_property([*columns, column])})

    _with_retry(table, change)
    return table


def widen_column(table: Table, name: str, new_type_text: str) -> Table:
    """INT to LONG, or DECIMAL(p,s) to DECIMAL(p',s) with p' >= p; anything else is INVALID_SCHEMA."""
    try:
        new_type = parse_column_type(new_type_text)
    except ColumnTypeError as error:
        raise InvalidSchema(str(error)) from None

    def change() -> None:
        columns = table_columns(table)
        current = next((c for c in columns if c.name == name), None)
        if current is None:
            raise InvalidSchema(f"unknown column {name!r}")
        if not is_safe_widening(current.type, new_type):
            raise InvalidSchema(f"column {name!r}: {current.type} to {new_type} is not a safe widening")
        if current.type == new_type:
            return
        widened = [
            ColumnDef(c.name, new_type, c.nullable, c.masked) if c.name == name else c for c in columns
        ]
        with table.transaction() as transaction:
            with transaction.update_schema() as update:
                update.update_column(name, field_type=iceberg_type(new_type))
            transaction.set_properties({COLUMNS_PROPERTY: _columns_property(widened)})

    _with_retry(table, change)
    return table


def _with_retry(table: Table, change: Callable[[], None], attempts: int = 5) -> None:
    """A schema change loses only to a commit landing in the catalog's compare-and-swap window: redo it."""
    for attempt in range(attempts):
        table.refresh()
        try:
            change()
            return
        except CommitFailedException:
            if attempt == attempts - 1:
                raise CommitConflict("the table kept changing; the schema change was not applied") from None
            time.sleep(0.05 * (attempt + 1))
