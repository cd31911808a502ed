# mypy: disable-error-code="import-untyped"
"""File batches to a table's columns: the plan (which file column feeds which table column) and the
conversion of one batch, with rejected rows counted and the first ones kept as a sample.

A row refused in any column is dropped from every column (one mask per batch). Messages are built only
for the rows that enter the sample, so a file with many bad rows costs no more than one with few.
"""

from __future__ import annotations

import csv as csv_module
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from schemas.column_types import SYSTEM_COLUMNS, ColumnDef
from sinks.iceberg.types import CellError, arrow_schema, arrow_type
from sinks.loads.cells import show, text_rule, value_message
from sinks.loads.columns import convert_column, is_text
from sinks.loads.exceptions import LoadMappingError
from sinks.loads.read import CsvOptions, MalformedRow

__all__ = ["Converted", "LoadMappingError", "Rejected", "convert_batch", "plan_columns", "user_schema"]

MASK_TEXT = "••••"
VALUE_CHARS = 200


@dataclass(frozen=True)
class Rejected:
    source: str
    row: int
    column: str | None
    message: str
    values: dict[str, str | None]


@dataclass
class Converted:
    table: pa.Table
    rejected_count: int
    sample: list[Rejected] = field(default_factory=list)


def user_schema(columns: Sequence[ColumnDef]) -> pa.Schema:
    """`arrow_schema(columns)` without the system columns, which the writer adds."""
    schema = arrow_schema(columns)
    return pa.schema([f for f in schema if f.name not in SYSTEM_COLUMNS])


def plan_columns(
    file_columns: Sequence[str], columns: Sequence[ColumnDef], mapping: Mapping[str, str] | None
) -> tuple[dict[str, str], list[str]]:
    """Which file column feeds each table column, and the file columns left unused (in file order).

    With `mapping` (file column -> table column) only the mapped table columns are filled; without,
    a table column takes the file column of the same name, else the one equal ignoring case and
    surrounding spaces. A table column without a file column is null. Raises LoadMappingError.
    """
    by_name = {c.name: c for c in columns}
    plan: dict[str, str] = {}
    if mapping is not None:
        for file_column, table_column in mapping.items():
            if file_column not in file_columns:
                raise LoadMappingError(
                    f'columnMapping names "{file_column}", which is not a column of the file'
                )
            if table_column not in by_name:
                raise LoadMappingError(
                    f'columnMapping maps "{file_column}" to "{table_column}", '
                    "which is not a column of the table"
                )
            if table_column in plan:
                raise LoadMappingError(
                    f'columnMapping maps both "{plan[table_column]}" and "{file_column}" to "{table_column}"'
                )
            plan[table_column] = file_column
    else:
        folded: dict[str, list[str]] = {}
        for name in file_columns:
            folded.setdefault(name.strip().lower(), []).append(name)
        for column in columns:
            if column.name in file_columns:
                plan[column.name] = column.name
                continue
            candidates = folded.get(column.name, [])
            if len(candidates) > 1:
                names = ", ".join(f'"{n}"' for n in candidates)
                raise LoadMappingError(f'file columns {names} all match table column "{column.name}"')
            if candidates:
                plan[column.name] = candidates[0]
        if not plan:
            raise LoadMappingError(
                "no file column matches a table column by name; give a columnMapping "
                f"(file columns: {', '.join(list(file_columns)[:10])})"
            )
    for file_column in plan.values():
        if list(file_columns).count(file_column) > 1:
            raise LoadMappingError(f'file column "{file_column}" appears more than once in the header')
    missing = [c.name for c in columns if not c.nullable and c.name not in plan]
    if missing:
        raise LoadMappingError(
            f"required table column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(f'{m!r}' for m in missing)} ha{'ve' if len(missing) > 1 else 's'} no file column"
        )
    used = set(plan.values())
    return plan, [name for name in file_columns if name not in used]


def convert_batch(
    batch: pa.RecordBatch,
    columns: Sequence[ColumnDef],
    plan: Mapping[str, str],
    *,
    csv: CsvOptions | None,
    encrypt: Callable[[str], str] | None,
    source: str,
    first_row: int,
    sample_limit: int = 20,
    sample: list[Rejected] | None = None,
    malformed: Sequence[MalformedRow] = (),
) -> Converted:
    """Convert one batch; rows are numbered from `first_row`, skipping the numbers of `malformed`
    (the malformed CSV lines among them, which count as rejected rows). New sample entries are
    appended to `sample` (a list shared across batches) until it holds `sample_limit` entries."""
    if encrypt is None and any(c.masked for c in columns):
        raise ValueError("the table has masked columns: an encrypt function is required")
    sample = [] if sample is None else sample
    formats: dict[str, str | None] = (
        {"date_format": csv.date_format, "timestamp_format": csv.timestamp_format} if csv else {}
    )
    size = batch.num_rows
    arrays: list[pa.Array] = []
    refusals: list[Refusal] = []
    rejected: pa.Array | None = None
    for column in columns:
        file_column = plan.get(column.name)
        raw = None
        if file_column is not None:
            index = batch.schema.get_field_index(file_column)
            if index < 0:
                raise ValueError(f'the plan reads file column "{file_column}", which the batch does not have')
            raw = batch.column(index)
        if raw is None:
            values, bad = pa.nulls(size, arrow_type(column.type)), None
        else:
            values, bad = convert_column(raw, column, **formats)
        if not column.nullable and values.null_count:
            missing = pc.is_null(values)
            bad = missing if bad is None else pc.or_(bad, missing)
        if bad is not None:
            refusals.append((column, raw, bad))
            rejected = bad if rejected is None else pc.or_(rejected, bad)
        arrays.append(values)
    rejected_count = len(malformed)
    if rejected is not None:
        rejected_count += pc.sum(rejected).as_py() or 0
    if rejected_count and len(sample) < sample_limit:
        context = _SampleContext(batch, columns, plan, source, csv or CsvOptions(), formats)
        sample.extend(context.entries(rejected, refusals, first_row, malformed, sample_limit - len(sample)))
    if rejected is not None:
        keep = pc.invert(rejected)
        arrays = [pc.filter(array, keep) for array in arrays]
    if encrypt is not None:
        arrays = [_encrypt(a, encrypt) if c.masked else a for c, a in zip(columns, arrays, strict=True)]
    table = pa.Table.from_arrays(arrays, schema=user_schema(columns))
    return Converted(table=table, rejected_count=rejected_count, sample=sample)


def _encrypt(array: pa.Array, encrypt: Callable[[str], str]) -> pa.Array:
    return pa.array([None if v is None else encrypt(v) for v in array.to_pylist()], pa.string())


Refusal = tuple[ColumnDef, pa.Array | None, pa.Array]


@dataclass(frozen=True)
class _SampleContext:
    """What the sample entries of one batch are built from."""

    batch: pa.RecordBatch
    columns: Sequence[ColumnDef]
    plan: Mapping[str, str]
    source: str
    csv: CsvOptions
    formats: Mapping[str, str | None]

    def entries(
        self,
        rejected: pa.Array | None,
        refusals: list[Refusal],
        first_row: int,
        malformed: Sequence[MalformedRow],
        room: int,
    ) -> list[Rejected]:
        skipped = sorted(m.row for m in malformed)
        entries: list[Rejected] = []
        positions = pc.indices_nonzero(rejected).slice(0, room).to_pylist() if rejected is not None else []
        for position in positions:
            number = first_row + position
            for skipped_row in skipped:
                if skipped_row <= number:
                    number += 1
            column, message = self._first_refusal(position, refusals)
            entries.append(Rejected(self.source, number, column, message, self._row_values(position)))
        for line in malformed[:room]:
            plural = "s" if line.fields != 1 else ""
            message = f"the line has {line.fields} field{plural}, expected {line.expected}"
            entries.append(Rejected(self.source, line.row, None, message, self._line_values(line)))
        entries.sort(key=lambda entry: entry.row)
        return entries[:room]

    @property
    def _shown(self) -> list[str]:
        """The file columns the plan reads, in table order; other file columns are not shown."""
        return [self.plan[c.name] for c in self.columns if c.name in self.plan]

    @property
    def _masked(self) -> set[str]:
        return {self.plan[c.name] for c in self.columns if c.masked and c.name in self.plan}

    def _row_values(self, position: int) -> dict[str, str | None]:
        masked = self._masked
        schema = self.batch.schema
        return {
            name: MASK_TEXT
            if name in masked
            else _cell_text(_python_value(self.batch.column(schema.get_field_index(name)), position))
            for name in self._shown
        }

    def _line_values(self, line: MalformedRow) -> dict[str, str | None]:
        """A malformed line's fields by position. When a column is masked every field is hidden: with
        fields missing or extra, a masked value may sit in any position."""
        if self._masked:
            return dict.fromkeys(self._shown, MASK_TEXT)
        try:
            fields = next(
                csv_module.reader([line.text], delimiter=self.csv.delimiter, quotechar=self.csv.quote)
            )
        except (csv_module.Error, StopIteration):
            fields = []
        by_name = dict(zip(self.batch.schema.names, fields, strict=False))
        return {name: _cell_text(by_name.get(name)) for name in self._shown}

    def _first_refusal(self, position: int, refusals: list[Refusal]) -> tuple[str, str]:
        for column, raw, bad in refusals:
            if not bad[position].as_py():
                continue
            value = None if raw is None else _python_value(raw, position)
            return column.name, f'column "{column.name}": {self._reason(column, raw, value)}'
        raise AssertionError("a rejected row has no refusing column")

    def _reason(self, column: ColumnDef, raw: pa.Array | None, value: Any) -> str:
        if raw is None or value is None or (isinstance(value, str) and not value.strip()):
            return "is required and missing or empty"
        raw_type = raw.type.value_type if pa.types.is_dictionary(raw.type) else raw.type
        if not is_text(raw_type):
            return value_message(value, str(raw_type), column)
        text = value.strip()
        try:
            text_rule(column.type, **self.formats)(text)
        except (CellError, ValueError, OverflowError) as error:
            return str(error)
        return f"{show(text)} is not a valid {column.type}"


def _python_value(array: pa.Array, position: int) -> Any:
    """A cell as Python has it, or as Arrow prints it when Python cannot hold it (year 0, nanoseconds)."""
    try:
        return array[position].as_py()
    except (OverflowError, ValueError):
        return pc.cast(array.slice(position, 1), pa.string())[0].as_py()


def _cell_text(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text[:VALUE_CHARS]
