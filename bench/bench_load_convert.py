# mypy: disable-error-code="import-untyped"
"""Throughput of a bulk load's read and conversion (`sinks.loads`), beside pyarrow reading the same CSV.

A CSV of seven typical columns (LONG, STRING, DECIMAL(12,2), DATE, TIMESTAMPTZ, DOUBLE, BOOLEAN) is
generated once; then, alternately, `pyarrow.csv.read_csv` with type inference and `read_batches` +
`convert_batch` read it. With ``--stage`` a third reader also writes the converted rows as the data files
of a table (`StagedFiles`, the load's writing threads; SQLite catalog and warehouse in the temporary folder)
and deletes them, which is a load without its service and its commit. With ``--bad-every N`` every Nth row
has a refused DECIMAL and every 5Nth row an extra field (a malformed line). Best and median of the runs are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.fs

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from sinks.loads import CsvOptions, Rejected, convert_batch, plan_columns, read_batches
from sinks.loads.stage import StagedFiles

COLUMNS = [
    ColumnDef(name, parse_column_type(type_text))
    for name, type_text in [
        ("id", "LONG"),
        ("name", "STRING"),
        ("amount", "DECIMAL(12,2)"),
        ("day", "DATE"),
        ("at", "TIMESTAMPTZ"),
        ("score", "DOUBLE"),
        ("flag", "BOOLEAN"),
    ]
]


def generate(path: Path, rows: int, bad_every: int) -> None:
    rng = random.Random(1)
    amounts = [f"{rng.randint(-(10**9), 10**9) / 100:.2f}" for _ in range(rows)]
    if bad_every:
        for index in range(bad_every - 1, rows, bad_every):
            amounts[index] = "12,5"
    moments = pa.array([rng.randint(0, 1_700_000_000_000_000) for _ in range(rows)], pa.int64())
    table = pa.table(
        {
            "id": pa.array(range(1, rows + 1), pa.int64()),
            "name": pa.array([f"name_{i % 50_000}" for i in range(rows)]),
            "amount": pa.array(amounts),
            "day": pa.array([rng.randint(0, 20_000) for _ in range(rows)], pa.int32()).cast(pa.date32()),
            "at": pc.strftime(moments.cast(pa.timestamp("us", "UTC")), "%Y-%m-%dT%H:%M:%SZ"),
            "score": pa.array([rng.gauss(0, 1000) for _ in range(rows)]),
            "flag": pa.array([rng.random() < 0.5 for _ in range(rows)]),
        }
    )
    pcsv.write_csv(table, path)
    if bad_every:
        lines = path.read_text().splitlines()
        for index in range(5 * bad_every, len(lines), 5 * bad_every):
            lines[index] += ",extra"
        path.write_text("\n".join(lines) + "\n")


def pyarrow_read(path: Path) -> int:
    skip = pcsv.ParseOptions(invalid_row_handler=lambda row: "skip")
    return int(pcsv.read_csv(path, parse_options=skip).num_rows)


def load_read(path: Path, stage: StagedFiles | None = None) -> int:
    options = CsvOptions()
    reader = read_batches(pyarrow.fs.LocalFileSystem(), str(path), "CSV", options)
    plan, _ = plan_columns(reader.column_names, COLUMNS, None)
    sample: list[Rejected] = []
    rows = 0
    for part in reader.batches():
        converted = convert_batch(
            part.data, COLUMNS, plan, csv=options, encrypt=None, source=path.name,
            first_row=part.first_row, malformed=part.malformed, sample=sample,
        )  # fmt: skip
        rows += converted.table.num_rows + converted.rejected_count
        if stage is not None and converted.table.num_rows:
            stage.add(converted.table)
    if stage is not None:
        stage.finish()
        stage.discard()
    return rows


def staged_read(folder: Path, path: Path) -> int:
    """`load_read`, the rows also written as data files of a fresh table (then deleted, never committed)."""
    catalog = iceberg.make_catalog(f"sqlite:///{folder / 'catalog.db'}", str(folder / "warehouse"))
    try:
        table = iceberg.create_table(catalog, uuid.uuid4().hex, uuid.uuid4().hex, COLUMNS)
        return load_read(path, StagedFiles(table, uuid.uuid4().hex, writer.next_record_id(table)))
    finally:
        catalog.engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=int, default=2_100_000, help="rows of the CSV (2.1M: about 200 MB)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bad-every", type=int, default=0, help="every Nth row refused (0: a clean file)")
    parser.add_argument("--stage", action="store_true", help="also time writing the rows as data files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "load.csv"
        generate(path, args.rows, args.bad_every)
        size = path.stat().st_size
        readers: dict[str, Callable[[Path], int]] = {
            "pyarrow.csv.read_csv (inference)": pyarrow_read,
            "read_batches + convert_batch": load_read,
        }
        if args.stage:
            readers["... + StagedFiles (data files)"] = partial(staged_read, Path(folder))
        times: dict[str, list[float]] = {name: [] for name in readers}
        rows = 0
        for _ in range(args.runs):
            for name, read in readers.items():
                started = time.perf_counter()
                rows = read(path)
                times[name].append(time.perf_counter() - started)
    print(f"{rows:,} rows, {size / 1e6:.0f} MB, best and median of {args.runs} runs")
    for name, spent in times.items():
        best, median = min(spent), statistics.median(spent)
        print(
            f"{name:34} best {best:5.2f} s  {rows / best:>10,.0f} rows/s  {size / best / 1e6:6.1f} MB/s"
            f" | median {median:5.2f} s  {size / median / 1e6:6.1f} MB/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
