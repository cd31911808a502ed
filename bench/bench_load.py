# mypy: disable-error-code="import-untyped"
"""MB/s of a CSV through the multipart intake and /load-from-s3, beside pyarrow + pyiceberg on the same file.

A CSV of seven typical columns (LONG, STRING, DECIMAL(12,2), DATE, TIMESTAMPTZ, DOUBLE, BOOLEAN; ``--mb``
megabytes, 1024 by default) is generated once. The baseline reads it with ``pyarrow.csv.read_csv`` with the
table's column types (so it converts every value) and appends the result with pyiceberg's ``Table.append``
into a fresh table of a separate SQLite catalog and local warehouse, created with the service's own schema
and table properties. The service runs as ``svc up``: the table is created through the table-admin API, the
file uploaded through ``/clients/svcdb-intake`` in parts sent by a few threads (streamed from the file, as
``svc load`` sends them), then loaded with ``/load-from-s3`` and followed with ``/job-status`` until it ends.

The machine's speed drifts by a third from one minute to the next on a shared host, so the run makes
``--rounds`` rounds (3 by default), each a baseline and then the service, back to back, and reports each
round and the medians. A first round warms both sides up (the allocators' memory, the page cache, the
worker's code paths) and is not reported (``--warmup-rounds``). The idle stack's CPU while a baseline
runs is printed too. MB/s is the file's size over the seconds taken; the ratio is the service's MB/s
through intake and load over the baseline's (target >= 0.7). The intake writes each part to disk before
it answers (fsync), as S3 keeps a part it acknowledged; neither the baseline nor the load syncs the Parquet
files it writes. The page cache is written back (``sync``) before each phase, so no phase pays for an
earlier one's writes. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
from _common import Stack, cpu_seconds, progress, role_of, running_stack, stack_roles
from rich.console import Console

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.convert import repeated, sequence
from sinks.iceberg.types import arrow_schema
from svc import load_file

TARGET_RATIO = 0.7
MB = 1_000_000
CHUNK_ROWS = 250_000
ADMIN = "/svc_poweruser/analytics/tables"
ANALYTICS = "/clients/svcdb/analytics"
FINAL_STATES = {"SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT"}
WAIT_MS = 20_000
REQUEST_TIMEOUT_SECONDS = 600.0
QUIET = Console(quiet=True)  # svc load's upload without its progress bar

COLUMNS: list[dict[str, Any]] = [
    {"name": "order_id", "type": "LONG", "nullable": False, "description": "Order number"},
    {"name": "customer", "type": "STRING"},
    {"name": "amount", "type": "DECIMAL(12,2)"},
    {"name": "ship_date", "type": "DATE"},
    {"name": "placed_at", "type": "TIMESTAMPTZ"},
    {"name": "weight_kg", "type": "DOUBLE"},
    {"name": "paid", "type": "BOOLEAN"},
]
TABLE_SPEC: dict[str, Any] = {
    "sqlName": "orders_loaded",
    "name": "Orders (bulk loaded)",
    "description": "One row per order, loaded from a CSV export",
    "grain": "order",
    "columns": COLUMNS,
}
CUSTOMERS = 50_000
DAY_SPAN = 20_000  # days from 1970-01-01
SECOND_SPAN = 1_700_000_000


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=1024, help="size of the CSV in MB (default 1024)")
    parser.add_argument("--part-mb", type=int, default=64, help="upload part size in MiB (default 64)")
    parser.add_argument("--upload-threads", type=int, default=4, help="parts sent at once (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="baseline + service rounds (default 3)")
    parser.add_argument(
        "--warmup-rounds", type=int, default=1, help="rounds run first and not reported (default 1)"
    )
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the load job")
    args = parser.parse_args()
    if (
        args.mb < 1
        or args.part_mb < 5
        or args.upload_threads < 1
        or args.rounds < 1
        or args.warmup_rounds < 0
    ):
        parser.error(
            "--mb >= 1, --part-mb >= 5 (the intake's minimum part), --upload-threads >= 1, --rounds >= 1"
        )
    return args


def column_defs() -> list[ColumnDef]:
    return [ColumnDef(c["name"], parse_column_type(c["type"]), c.get("nullable", True)) for c in COLUMNS]


# ---------------------------------------------------------------------------------------------------------
# Data: vectorised, so a gigabyte takes seconds rather than minutes of Python loops


def _uniform(rows: int, seed: int) -> pa.Array:
    return pc.random(rows, initializer=seed)


def _scaled(rows: int, seed: int, span: int, kind: pa.DataType) -> pa.Array:
    return pc.floor(pc.multiply(_uniform(rows, seed), float(span))).cast(kind)


def _money(cents: pa.Array) -> pa.Array:
    """Cents as DECIMAL(12,2) text, e.g. -1234.05, built without Python loops."""
    whole = pc.abs(cents)
    units = pc.divide(whole, 100)  # integer division truncates
    fraction = pc.subtract(whole, pc.multiply(units, 100))
    sign = pc.if_else(pc.less(cents, 0), "-", "")
    return pc.binary_join_element_wise(
        sign, units.cast(pa.string()), ".", pc.utf8_lpad(fraction.cast(pa.string()), 2, "0"), ""
    )


def _chunk(first_id: int, rows: int, seed: int, customers: pa.Array) -> pa.Table:
    cents = pc.subtract(_scaled(rows, seed + 1, 2 * 10**9, pa.int64()), 10**9)
    seconds = _scaled(rows, seed + 2, SECOND_SPAN, pa.int64())
    # A cast prints "1983-05-09 15:14:14", far faster than strftime; made ISO-8601 UTC from there.
    spaced = seconds.cast(pa.timestamp("s")).cast(pa.string())
    placed = pc.binary_join_element_wise(pc.replace_substring(spaced, " ", "T", max_replacements=1), "Z", "")
    days = _scaled(rows, seed + 3, DAY_SPAN, pa.int32()).cast(pa.date32())
    weight = pc.round(pc.multiply(_uniform(rows, seed + 4), 40.0), 3)
    return pa.table(
        {
            "order_id": sequence(first_id, rows),
            "customer": customers.take(_scaled(rows, seed, CUSTOMERS, pa.int64())),
            "amount": _money(cents),
            "ship_date": days,
            "placed_at": placed,
            "weight_kg": weight,
            "paid": pc.less(_uniform(rows, seed + 5), 0.9),
        }
    )


def generate(path: Path, target_bytes: int, seed: int) -> int:
    """Write chunks of rows until the file reaches `target_bytes`; the number of data rows written."""
    customers = pa.array([f"cus_{i:08d}" for i in range(CUSTOMERS)])
    rows = 0
    # Unquoted, as most exports write CSV; no value holds a comma or a quote.
    options = pcsv.WriteOptions(quoting_style="none")
    with (
        path.open("wb") as sink,
        pcsv.CSVWriter(sink, _chunk(1, 1, seed, customers).schema, write_options=options) as out,
    ):
        chunk_index = 0
        while sink.tell() < target_bytes:
            # Small last chunk: stop close to the asked size (about 75 bytes a row).
            remaining = max(1_000, (target_bytes - sink.tell()) // 75)
            count = min(CHUNK_ROWS, remaining)
            out.write_table(_chunk(rows + 1, count, seed + 10 * chunk_index, customers))
            rows += count
            chunk_index += 1
    return rows


# ---------------------------------------------------------------------------------------------------------
# Baseline: pyarrow's CSV reader with the table's types, then one pyiceberg append


@dataclass(frozen=True)
class Baseline:
    read_seconds: float
    append_seconds: float
    rows: int
    cpu: float  # this process's CPU seconds over both parts (every thread)

    @property
    def seconds(self) -> float:
        return self.read_seconds + self.append_seconds


def measure_baseline(workdir: Path, csv_path: Path, expected_rows: int) -> Baseline:
    columns = column_defs()
    schema = arrow_schema(columns)
    types = {c.name: schema.field(c.name).type for c in columns}
    catalog = iceberg.make_catalog(f"sqlite:///{workdir / 'catalog.db'}", str(workdir / "warehouse"))
    try:
        table = iceberg.create_table(catalog, uuid.uuid4().hex, uuid.uuid4().hex, columns)
        progress("baseline: pyarrow.csv.read_csv with the table's column types")
        cpu_before = time.process_time()
        began = time.perf_counter()
        data = pcsv.read_csv(csv_path, convert_options=pcsv.ConvertOptions(column_types=types))
        read_seconds = time.perf_counter() - began
        progress(f"baseline: read {data.num_rows:,} rows in {read_seconds:.1f} s; pyiceberg append")
        began = time.perf_counter()
        # The table's system columns, as the service's writer fills them.
        arrays = [*data.columns, repeated(uuid.uuid4().hex, data.num_rows), sequence(1, data.num_rows)]
        table.append(pa.Table.from_arrays(arrays, schema=schema))
        append_seconds = time.perf_counter() - began
        cpu = time.process_time() - cpu_before
        del data, arrays
        table.refresh()
        snapshot = table.current_snapshot()
        summary = snapshot.summary if snapshot is not None else None
        stored = int(summary.additional_properties["total-records"]) if summary is not None else 0
    finally:
        catalog.engine.dispose()
    gc.collect()
    if stored != expected_rows:
        raise RuntimeError(f"the baseline table holds {stored:,} rows, expected {expected_rows:,}")
    return Baseline(read_seconds, append_seconds, stored, cpu)


# ---------------------------------------------------------------------------------------------------------
# Service: upload through the intake, then /load-from-s3 until the job ends


@dataclass(frozen=True)
class Service:
    upload_seconds: float
    load_seconds: float
    job_seconds: float  # the job's elapsedMs: claimed by the worker to finished
    rows_loaded: int
    rows_rejected: int
    parts: int
    worker_cpu: float
    ingress_cpu: float

    @property
    def seconds(self) -> float:
        return self.upload_seconds + self.load_seconds


@dataclass(frozen=True)
class Round:
    baseline: Baseline
    service: Service
    stack_cpu_during_baseline: float  # CPU seconds the idle stack used while the baseline ran


def _answer(response: httpx.Response, what: str) -> dict[str, Any]:
    if response.status_code != 200:
        raise RuntimeError(f"{what} answered {response.status_code}: {response.text[:300]}")
    body: dict[str, Any] = response.json()
    return body


def upload(client: httpx.Client, key: str, path: Path, part_bytes: int, threads: int) -> tuple[str, int]:
    """The file's s3Uri once uploaded as ``svc load`` uploads it, and the number of parts sent."""
    with httpx.Client(
        base_url=client.base_url, headers={"Authorization": key}, timeout=REQUEST_TIMEOUT_SECONDS
    ) as authorized:
        uri = load_file.upload(authorized, path, part_bytes, QUIET, parts_at_once=threads)
    return uri, max(1, -(-path.stat().st_size // part_bytes))


def load(client: httpx.Client, key: str, table_id: str, uri: str, timeout: float) -> dict[str, Any]:
    headers = {"Authorization": key}
    params = {"resourceId": table_id}
    body = {"tableId": table_id, "sourceUris": [uri], "format": "CSV", "mode": "APPEND"}
    job_id = _answer(
        client.post(f"{ANALYTICS}/load-from-s3", params=params, json=body, headers=headers), "load-from-s3"
    )["jobId"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = _answer(
            client.post(
                f"{ANALYTICS}/job-status",
                params=params,
                json={"tableId": table_id, "jobId": job_id, "waitMs": WAIT_MS},
                headers=headers,
            ),
            "job-status",
        )
        if status["state"] in FINAL_STATES:
            return status
    raise RuntimeError(f"load job {job_id} did not end within {timeout:.0f} s")


def stack_pids(stack: Stack) -> dict[str, int]:
    """The stack's ingress, worker and broker processes (``_common.stack_roles``)."""
    roles = stack_roles(stack.process.pid)
    return {name: pid for name, pid in roles.items() if role_of(name) in ("ingress", "worker", "broker")}


def warm_up(client: httpx.Client, key: str, table_id: str, workdir: Path, timeout: float) -> None:
    """One tiny load first: the worker's consumer group has joined and its code paths are warm, so the
    measured load starts from a steady state, as a load on a running service would."""
    path = workdir / "warm-up.csv"
    path.write_text(
        "order_id,customer,amount,ship_date,placed_at,weight_kg,paid\n"
        "0,cus_00000000,1.00,2026-01-01,2026-01-01T00:00:00Z,1.5,true\n"
    )
    uri, _ = upload(client, key, path, 5 * 1024 * 1024, 1)
    status = load(client, key, table_id, uri, timeout)
    if status["state"] != "SUCCEEDED" or status.get("rowsLoaded") != 1:
        raise RuntimeError(f"the warm-up load ended {status['state']}: {str(status)[:300]}")


@dataclass(frozen=True)
class Prepared:
    key: str
    table_id: str
    pids: dict[str, int]


def prepare_service(stack: Stack, workdir: Path, timeout: float) -> Prepared:
    """A company, its table and a warm-up load of one row."""
    company = stack.admin("create-company", "--name", "Load Bench", "--admin-email", "admin@load.example")
    key = company["clientApiKey"]
    with httpx.Client(base_url=stack.url, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        created = _answer(
            client.post(
                f"{ADMIN}/create", json=TABLE_SPEC, headers={"Authorization": company["poweruserKey"]}
            ),
            "tables/create",
        )
        table_id = str(created["tableId"])
        progress(f"table {table_id} created; warm-up load of one row")
        warm_up(client, key, table_id, workdir, timeout)
    return Prepared(key, table_id, stack_pids(stack))


def run_service(
    stack: Stack, ready: Prepared, csv_path: Path, rows: int, args: argparse.Namespace
) -> Service:
    """One upload of the file and one APPEND load of it."""
    pids = ready.pids
    with httpx.Client(base_url=stack.url, timeout=REQUEST_TIMEOUT_SECONDS) as client:
        progress(f"service: uploading in {args.part_mb} MiB parts, {args.upload_threads} at once")
        ingress_before = cpu_seconds(pids.get("ingress", 0))
        began = time.monotonic()
        uri, parts = upload(client, ready.key, csv_path, args.part_mb * 1024 * 1024, args.upload_threads)
        upload_seconds = time.monotonic() - began
        progress(f"service: uploaded {parts} parts in {upload_seconds:.1f} s; loading")
        worker_before = cpu_seconds(pids.get("worker", 0))
        began = time.monotonic()
        status = load(client, ready.key, ready.table_id, uri, args.timeout)
        load_seconds = time.monotonic() - began
        worker_cpu = cpu_seconds(pids.get("worker", 0)) - worker_before
        ingress_cpu = cpu_seconds(pids.get("ingress", 0)) - ingress_before
    if status["state"] != "SUCCEEDED":
        raise RuntimeError(
            f"the load ended {status['state']}: {status.get('errorCode')} {status.get('errorMessage')}"
        )
    progress(f"service: load {status['state']} in {load_seconds:.1f} s")
    loaded, rejected = int(status.get("rowsLoaded") or 0), int(status.get("rowsRejected") or 0)
    if loaded != rows or rejected:
        raise RuntimeError(
            f"the load took {loaded:,} rows and rejected {rejected:,}; {rows:,} rows were generated "
            f"(sample: {str(status.get('rejectedSample'))[:300]})"
        )
    return Service(
        upload_seconds=upload_seconds,
        load_seconds=load_seconds,
        job_seconds=int(status.get("elapsedMs") or 0) / 1000,
        rows_loaded=loaded,
        rows_rejected=rejected,
        parts=parts,
        worker_cpu=worker_cpu,
        ingress_cpu=ingress_cpu,
    )


# ---------------------------------------------------------------------------------------------------------
# Report


def report(size: int, rows: int, rounds: list[Round], args: argparse.Namespace) -> None:
    def rate(seconds: float) -> float:
        return size / MB / seconds

    def line(label: str, value: str, target: str = "", verdict: str = "") -> None:
        print(f"{label:<58}{value:>14}  {target:<10}{verdict}")

    print()
    print(
        f"load: {size / MB:,.0f} MB CSV, {rows:,} rows, 7 columns; {rounds[0].service.parts} parts of "
        f"{args.part_mb} MiB, {args.upload_threads} at once; {os.cpu_count()} CPUs; {len(rounds)} rounds"
    )
    print(
        f"{'round':<6}{'baseline s':>11}{'(read':>7}{'+ append)':>10}{'upload s':>10}{'load s':>8}"
        f"{'e2e ratio':>11}{'load ratio':>12}{'CPU s: baseline / worker / ingress':>38}"
    )
    for number, each in enumerate(rounds, start=1):
        base, service = each.baseline, each.service
        print(
            f"{number:<6}{base.seconds:>11.1f}{base.read_seconds:>7.1f}{base.append_seconds:>10.1f}"
            f"{service.upload_seconds:>10.1f}{service.load_seconds:>8.1f}"
            f"{base.seconds / service.seconds:>11.2f}{base.seconds / service.load_seconds:>12.2f}"
            f"{base.cpu:>20.1f} / {service.worker_cpu:.1f} / {service.ingress_cpu:.1f}"
        )
    print()
    header = f"{'median of the rounds':<58}{'MB/s':>14}  {'target':<10}verdict"
    print(header)
    print("-" * len(header))
    base_seconds = statistics.median(r.baseline.seconds for r in rounds)
    upload_seconds = statistics.median(r.service.upload_seconds for r in rounds)
    load_seconds = statistics.median(r.service.load_seconds for r in rounds)
    end_to_end = statistics.median(r.service.seconds for r in rounds)
    e2e_ratio = statistics.median(r.baseline.seconds / r.service.seconds for r in rounds)
    load_ratio = statistics.median(r.baseline.seconds / r.service.load_seconds for r in rounds)
    line(
        f"baseline: pyarrow read_csv typed + pyiceberg append ({base_seconds:.1f} s)",
        f"{rate(base_seconds):,.1f}",
    )
    line(f"service: upload through the intake ({upload_seconds:.1f} s)", f"{rate(upload_seconds):,.1f}")
    line(f"service: /load-from-s3 until SUCCEEDED ({load_seconds:.1f} s)", f"{rate(load_seconds):,.1f}")
    line(f"service: through intake and load ({end_to_end:.1f} s)", f"{rate(end_to_end):,.1f}")
    line(
        "ratio through intake and load / baseline",
        f"{e2e_ratio:.2f}",
        f">= {TARGET_RATIO}",
        "met" if e2e_ratio >= TARGET_RATIO else "MISSED",
    )
    line("ratio load alone / baseline", f"{load_ratio:.2f}")
    idle = max(r.stack_cpu_during_baseline for r in rounds)
    print(f"the idle stack used at most {idle:.2f} CPU s while a baseline ran")


def main() -> int:
    args = _arguments()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-load-", ignore_cleanup_errors=True) as tmp:
            csv_path = Path(tmp) / "orders.csv"
            progress(f"generating a {args.mb:,} MB CSV (seed {args.seed})")
            rows = generate(csv_path, args.mb * MB, args.seed)
            size = csv_path.stat().st_size
            progress(f"generated {rows:,} rows, {size / MB:,.1f} MB")
            limits = {"SVC_RATE_LIMIT_PER_MINUTE": "1000000", "SVC_RATE_LIMIT_PER_DAY": "100000000"}
            progress("starting svc up")
            rounds: list[Round] = []
            with running_stack(Path(tmp) / "data", limits) as stack:
                progress(f"svc is up at {stack.url}")
                ready = prepare_service(stack, Path(tmp), args.timeout)
                for number in range(1 - args.warmup_rounds, args.rounds + 1):
                    # Each phase starts with nothing of an earlier one left to write back.
                    os.sync()
                    baseline_dir = Path(tmp) / f"baseline-{number}"
                    baseline_dir.mkdir()
                    stack_before = _stack_cpu(ready)
                    baseline = measure_baseline(baseline_dir, csv_path, rows)
                    stack_idle = _stack_cpu(ready) - stack_before
                    shutil.rmtree(baseline_dir, ignore_errors=True)
                    progress(f"round {number}: baseline {baseline.seconds:.1f} s")
                    os.sync()
                    measured = Round(baseline, run_service(stack, ready, csv_path, rows, args), stack_idle)
                    if number >= 1:  # rounds numbered 0 and below warm both sides up and are not reported
                        rounds.append(measured)
                progress("stopping svc up")
        report(size, rows, rounds, args)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


def _stack_cpu(ready: Prepared) -> float:
    return sum(cpu_seconds(pid) for pid in ready.pids.values())


if __name__ == "__main__":
    sys.exit(main())
