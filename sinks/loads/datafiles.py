# mypy: disable-error-code="import-untyped"
"""Parquet data files of an Iceberg table, written by a load before its commit.

The files are written as pyiceberg writes a table's data files (the table's schema with field ids, its
Parquet properties, statistics from the Parquet footer), but nothing here commits them: until a snapshot
names them (`staged.commit_staged`) no reader sees them, and a load that fails deletes them.

An unpartitioned table gets rolling files: row groups are added to one file until it holds about the
table's target file size (`write.target-file-size-bytes`, counted in Arrow bytes as pyiceberg counts it),
so a large load makes a few large files. A partitioned table's rows are split by pyiceberg's own writer,
one call per chunk of rows.
"""

from __future__ import annotations

import contextlib
import itertools
import posixpath
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.io import FileIO
from pyiceberg.io.pyarrow import ParquetFormatWriter, _dataframe_to_data_files, schema_to_pyarrow
from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
from pyiceberg.table import Table, TableProperties
from pyiceberg.table.locations import load_location_provider
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.typedef import Record
from pyiceberg.utils.properties import property_as_int

from schemas.column_types import LOAD_ID_COLUMN, RECORD_ID_COLUMN
from sinks.iceberg.convert import repeated, sequence

__all__ = [
    "FileTarget",
    "RollingFiles",
    "SystemColumns",
    "delete_files",
    "dictionary_columns",
    "renumbered_file",
    "with_system_columns",
]

DICTIONARY_SAMPLE_ROWS = 65_536
DICTIONARY_MAX_DISTINCT_SHARE = 0.1


@dataclass(frozen=True)
class FileTarget:
    """The table a load writes, as of the load's start: files keep the schema their rows were converted to,
    even when the table is refreshed (or its schema widened) before the commit."""

    io: FileIO
    metadata: TableMetadata

    @classmethod
    def of(cls, table: Table) -> FileTarget:
        return cls(table.io, table.metadata)

    @property
    def arrow_schema(self) -> pa.Schema:
        """The table's schema as Arrow, with the field ids pyiceberg writes into a data file."""
        return schema_to_pyarrow(self.metadata.schema(), include_field_ids=True)

    @property
    def partitioned(self) -> bool:
        return not self.metadata.spec().is_unpartitioned()

    @property
    def target_bytes(self) -> int:
        size = property_as_int(
            self.metadata.properties,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
        )
        return size or TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT

    def parquet_writer(self, path: str) -> ParquetFormatWriter:
        return _LoadFileWriter(self.io.new_output(path), self.metadata.schema(), self.metadata.properties)

    def data_file(self, path: str, writer: ParquetFormatWriter, like: DataFile | None = None) -> DataFile:
        """The DataFile of a closed file; `like`: the file it replaces, whose partition it keeps."""
        return DataFile.from_args(
            content=DataFileContent.DATA,
            file_path=path,
            file_format=FileFormat.PARQUET,
            partition=like.partition if like is not None else Record(),
            file_size_in_bytes=len(self.io.new_input(path)),
            sort_order_id=None,
            spec_id=self.metadata.default_spec_id,
            equality_ids=None,
            key_metadata=None,
            **writer.result().to_serialized_dict(),
        )


def dictionary_columns(rows: pa.Table) -> list[str]:
    """The columns worth dictionary encoding: at most ``DICTIONARY_MAX_DISTINCT_SHARE`` of the values in the
    first ``DICTIONARY_SAMPLE_ROWS`` rows are distinct (a status, a country, ``_load_id``). Parquet writers
    encode every column with a dictionary until it grows too large; on columns of mostly distinct values
    (ids, amounts, timestamps) that costs a hash per value and makes files larger.
    """
    sample = rows.slice(0, DICTIONARY_SAMPLE_ROWS)
    limit = max(1, int(sample.num_rows * DICTIONARY_MAX_DISTINCT_SHARE))
    chosen: list[str] = []
    for field, column in zip(sample.schema, sample.columns, strict=True):
        if pa.types.is_nested(field.type) or pa.types.is_boolean(field.type):
            continue  # booleans are bit-packed anyway; nested columns keep the writer's default (none)
        if pc.count_distinct(column, mode="all").as_py() <= limit:
            chosen.append(field.name)
    return chosen


class _LoadFileWriter(ParquetFormatWriter):
    """pyiceberg's data file writer, with dictionaries only for the columns `dictionary_columns` picks from
    the file's first rows."""

    def write(self, table: pa.Table) -> None:
        if self._writer is None:
            self._parquet_writer_kwargs = {
                **self._parquet_writer_kwargs,
                "use_dictionary": dictionary_columns(table),
            }
        super().write(table)


class SystemColumns:
    """`_load_id` and `_record_id` for the chunks of one load: each made once, as long as the longest chunk
    and in the table's type, and sliced per chunk (a slice copies nothing), instead of allocating and
    filling three arrays per chunk."""

    def __init__(self, load_id: str, schema: pa.Schema) -> None:
        self._load_id = load_id
        self._load_id_type = schema.field(LOAD_ID_COLUMN).type
        self._record_id_type = schema.field(RECORD_ID_COLUMN).type
        self._load_ids: pa.Array | None = None
        self._offsets: pa.Array | None = None

    def load_ids(self, count: int) -> pa.Array:
        if self._load_ids is None or len(self._load_ids) < count:
            self._load_ids = repeated(self._load_id, count).cast(self._load_id_type)
        return self._load_ids.slice(0, count)

    def record_ids(self, first: int, count: int) -> pa.Array:
        if self._offsets is None or len(self._offsets) < count:
            self._offsets = sequence(0, count)
        return pc.add(self._offsets.slice(0, count), first).cast(self._record_id_type)


def with_system_columns(
    rows: pa.Table,
    schema: pa.Schema,
    load_id: str,
    first_record_id: int,
    system: SystemColumns | None = None,
) -> pa.Table:
    """`rows` (the user columns) in the table's column order and types, `_load_id` set to `load_id` and
    `_record_id` counting from `first_record_id`; a table column the rows lack is null. `system` (made
    for `load_id` and `schema`) shares the system columns' arrays between the chunks of a load."""
    count = rows.num_rows
    names = set(rows.column_names)
    extra = names - set(schema.names)
    if extra:
        raise ValueError(f"rows carry columns the table does not have: {sorted(extra)}")
    system = system or SystemColumns(load_id, schema)
    arrays: list[pa.Array | pa.ChunkedArray] = []
    for field in schema:
        if field.name == LOAD_ID_COLUMN:
            column: pa.Array | pa.ChunkedArray = system.load_ids(count)
        elif field.name == RECORD_ID_COLUMN:
            column = system.record_ids(first_record_id, count)
        elif field.name in names:
            column = rows.column(field.name)
        elif field.nullable:
            column = pa.nulls(count, field.type)
        else:
            raise ValueError(f"rows lack the required column {field.name!r}")
        arrays.append(column if column.type == field.type else column.cast(field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


class RollingFiles:
    """Data files of an unpartitioned table, each filled to about the target size before the next starts."""

    def __init__(self, target: FileTarget, name_prefix: str) -> None:
        self._target = target
        self._prefix = name_prefix
        self._locations = load_location_provider(target.metadata.location, target.metadata.properties)
        self._limit = target.target_bytes
        self._counter = itertools.count()
        self._writer: ParquetFormatWriter | None = None
        self._path = ""
        self._bytes = 0
        self.created: list[str] = []
        """Every path written to, the open file's too: what a failed load deletes."""
        self.done: list[DataFile] = []

    def write(self, rows: pa.Table) -> None:
        """Add `rows` (conformed by `with_system_columns`) to the current file as row groups."""
        if self._writer is None:
            name = f"{self._prefix}-{next(self._counter):05d}.parquet"
            self._path = self._locations.new_data_location(name)
            self.created.append(self._path)
            self._writer = self._target.parquet_writer(self._path)
            self._bytes = 0
        self._writer.write(rows)
        self._bytes += rows.nbytes
        if self._bytes >= self._limit:
            self.close()

    def close(self) -> None:
        """End the current file, if one is open; its DataFile joins `done`."""
        if self._writer is None:
            return
        writer, self._writer = self._writer, None
        writer.close()
        self.done.append(self._target.data_file(self._path, writer))

    def abandon(self) -> None:
        """Close the current file without keeping it (a failed load deletes it with the others)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()


def write_partitioned(
    target: FileTarget, rows: pa.Table, write_uuid: uuid.UUID, counter: itertools.count[int]
) -> list[DataFile]:
    """`rows` (conformed) as data files of a partitioned table, split as pyiceberg's append splits them."""
    return list(
        _dataframe_to_data_files(
            table_metadata=target.metadata, df=rows, io=target.io, write_uuid=write_uuid, counter=counter
        )
    )


def renumbered_file(target: FileTarget, data_file: DataFile, delta: int) -> DataFile:
    """A copy of `data_file` beside it with every `_record_id` moved by `delta`; the old file is kept."""
    schema = target.arrow_schema
    index = schema.get_field_index(RECORD_ID_COLUMN)
    path = f"{posixpath.dirname(data_file.file_path)}/{uuid.uuid4().hex}-renumbered.parquet"
    writer = target.parquet_writer(path)
    try:
        with target.io.new_input(data_file.file_path).open() as stream:
            source = pq.ParquetFile(stream)
            for group in range(source.num_row_groups):  # one row group in memory at a time
                rows = source.read_row_group(group).cast(schema)
                shifted = pc.add(rows.column(index), pa.scalar(delta, pa.int64()))
                writer.write(rows.set_column(index, schema.field(index), shifted))
        writer.close()
    except BaseException:
        with contextlib.suppress(Exception):
            writer.close()
        delete_files(target.io, [path])
        raise
    return target.data_file(path, writer, like=data_file)


def delete_files(io: FileIO, paths: Sequence[str]) -> None:
    """Delete `paths`, those that exist; a path never created is no error."""
    for path in paths:
        try:
            io.delete(path)
        except FileNotFoundError:
            continue
