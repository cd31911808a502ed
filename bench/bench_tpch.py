"""The 22 TPC-H queries through /query, beside DuckDB running them directly on Parquet files.

TPC-H data (scale factor 1 by default) is generated once with DuckDB's tpch extension. The baseline is the
same DuckDB (same threads and memory limit as the service's query engine) over one Parquet file per table
(``read_parquet``), measured in the same run. The service runs as ``svc up``: the eight tables are created
through the table-admin API and the data appended into their Iceberg tables with the service's writer
(``lineitem`` and ``orders`` partitioned by month); each query is timed from the /query call until its
whole result has been read (the preview, or every /job-results page). Every service answer is checked
against the baseline's. Reported: per-query medians and their ratio, the geometric mean of the ratios
(target <= 1.2 against DuckDB on the service's own files), the p50/p95 of a trivial query (target p50 <= 6
ms), and for each result of more than 1,000 rows the time to read it whole through the job's Parquet
download instead of its pages (target <= 1.5x DuckDB's time for the query). The ``job ms`` column is the
job's own elapsedMs (from the claim to the outcome), which splits a query's time between the run and the
trip around it. Two references follow, from the same run: the p50 of an authenticated ``/job-status`` call
(what any client call costs here, the floor under a trivial query, which also plans, runs and records a job)
and the geometric mean the service would reach if each query cost DuckDB's time on its files plus the
trivial query's p50 and nothing else (the floor of the ratio at this fixed cost per call). Times are
printed, never asserted. ``--baseline-only`` runs everything that needs no service.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pyarrow as pa
from _common import (
    REPO,
    Percentiles,
    Stack,
    add_set_argument,
    percentiles,
    progress,
    running_stack,
    stack_settings,
)
from pyiceberg.catalog.sql import SqlCatalog

from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg

# The TPC-H material lives with the tests (it is their oracle too); the benchmark runs from bench/.
sys.path.insert(0, str(REPO))
from tests.tpch import data
from tests.tpch.oracle import (
    QUERY_NUMBERS,
    Result,
    differences,
    duckdb_sql,
    order_positions,
    result_of_arrow,
    result_of_json,
    trino_sql,
)
from tests.tpch.service import AnalyticsClient, create_tables

TARGET_GEOMEAN_RATIO = 1.2
TARGET_TRIVIAL_P50_MS = 6.0
# A result larger than this is also read through the job's Parquet download (one link, one streamed file).
LARGE_RESULT_ROWS = 1_000
TARGET_LARGE_READ_RATIO = 1.5
TRIVIAL_SQL = "SELECT 1 AS x FROM region LIMIT 1"


@dataclass(frozen=True)
class Calls:
    """The trivial query's timings, and an authenticated /job-status call's (the floor of any call)."""

    trivial: Percentiles
    status: Percentiles


MEMORY_LIMIT = "2GB"  # the service's default query_memory_limit


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--repetitions", type=int, default=3, help="timed runs per query and side")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per query and side first")
    parser.add_argument("--trivial-calls", type=int, default=50, help="timed calls of the trivial query")
    parser.add_argument("--threads", type=int, default=2, help="DuckDB threads, service and baseline")
    parser.add_argument(
        "--queries", type=str, default="", help="comma-separated query numbers (default: all 22)"
    )
    parser.add_argument(
        "--baseline-only", action="store_true", help="generate the data and time the Parquet baseline only"
    )
    add_set_argument(parser)
    args = parser.parse_args()
    if args.sf <= 0:
        parser.error("--sf must be positive")
    if args.repetitions < 1 or args.trivial_calls < 2 or args.warmup < 0:
        parser.error("--repetitions >= 1, --trivial-calls >= 2 and --warmup >= 0 are needed")
    try:
        args.numbers = [int(n) for n in args.queries.split(",") if n.strip()] or list(QUERY_NUMBERS)
    except ValueError:
        parser.error("--queries takes numbers such as 1,6,18")
    if not set(args.numbers) <= set(QUERY_NUMBERS):
        parser.error("query numbers go from 1 to 22")
    return args


@dataclass
class Timing:
    number: int
    rows: int
    baseline_ms: list[float]
    service_ms: list[float] = field(default_factory=list)
    download_ms: list[float] = field(default_factory=list)  # large results read as a Parquet download
    # DuckDB over the service's own data files (the tables' current snapshots), same run.
    files_ms: list[float] = field(default_factory=list)
    # The job's own elapsedMs as the service recorded it (claim to outcome, in the worker), per timed call.
    job_ms: list[float] = field(default_factory=list)
    check: str = "-"

    @property
    def baseline_median(self) -> float:
        return statistics.median(self.baseline_ms)

    @property
    def service_median(self) -> float | None:
        return statistics.median(self.service_ms) if self.service_ms else None

    @property
    def ratio(self) -> float | None:
        median = self.service_median
        return None if median is None else median / self.baseline_median

    @property
    def files_median(self) -> float | None:
        return statistics.median(self.files_ms) if self.files_ms else None

    @property
    def files_ratio(self) -> float | None:
        service, files = self.service_median, self.files_median
        return None if service is None or files is None else service / files


def _repeat(action: Callable[[], object], repetitions: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        action()
    samples: list[float] = []
    for _ in range(repetitions):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def parquet_baseline(
    paths: Mapping[str, Path], args: argparse.Namespace
) -> tuple[list[Timing], dict[int, Result]]:
    """Each query on DuckDB over the Parquet files; the medians and the answers (the service's oracle)."""
    timings: list[Timing] = []
    answers: dict[int, Result] = {}
    with connect(threads=args.threads, memory_limit=MEMORY_LIMIT) as duck:
        for name, path in paths.items():
            duck.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")  # noqa: S608
        for number in args.numbers:
            sql = duckdb_sql(number)
            answers[number] = result_of_arrow(duck.execute(sql).to_arrow_table())

            def run(query: str = sql) -> pa.Table:
                return duck.execute(query).to_arrow_table()

            samples = _repeat(run, args.repetitions, args.warmup)
            timings.append(Timing(number, len(answers[number].rows), samples))
            progress(f"  baseline q{number:02d}: median {statistics.median(samples):,.1f} ms")
    return timings, answers


def snapshot_files(
    catalog: SqlCatalog, company_id: str, table_ids: Mapping[str, str]
) -> dict[str, list[str]]:
    """Each table's data files in its current snapshot, as the service's query engine reads them."""
    files: dict[str, list[str]] = {}
    for name, table_id in table_ids.items():
        handle = iceberg.load_table(catalog, company_id, table_id)
        tasks = list(handle.scan().plan_files())
        if any(task.delete_files for task in tasks):
            raise RuntimeError(f"{name} has delete files: its data files alone are not its rows")
        files[name] = [str(task.file.file_path).removeprefix("file://") for task in tasks]
    return files


def files_baseline(files: Mapping[str, list[str]], timings: list[Timing], args: argparse.Namespace) -> None:
    """Each query on DuckDB over the service's own data files (plain ``read_parquet`` of the list), with
    the same threads and memory limit: the layout the service reads (month partitions of ``lineitem`` and
    ``orders``, the writer's file and row-group sizes) is on both sides, so the ratio is the service's."""
    with connect(threads=args.threads, memory_limit=MEMORY_LIMIT) as duck:
        for name, paths in files.items():
            listed = ", ".join(f"'{path}'" for path in paths)
            duck.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet([{listed}])")  # noqa: S608
        for timing in timings:
            sql = duckdb_sql(timing.number)

            def run(query: str = sql) -> pa.Table:
                return duck.execute(query).to_arrow_table()

            timing.files_ms = _repeat(run, args.repetitions, args.warmup)
            progress(f"  same files q{timing.number:02d}: median {timing.files_median:,.1f} ms")


def service_run(
    stack: Stack,
    data_dir: Path,
    tables: Mapping[str, pa.Table],
    timings: list[Timing],
    answers: Mapping[int, Result],
    args: argparse.Namespace,
) -> Calls:
    company = stack.admin("create-company", "--name", "TPC-H Bench", "--admin-email", "admin@tpch.example")
    with httpx.Client(base_url=stack.url, timeout=120) as client:
        requests = {name: data.create_request(name) for name in data.TABLE_NAMES}
        table_ids = create_tables(client, company["poweruserKey"], requests)
        progress("appending the data into the service's Iceberg tables")
        began = time.monotonic()
        catalog = iceberg.make_catalog(f"sqlite:///{data_dir / 'svc.db'}", str(data_dir / "warehouse"))
        try:
            for loaded in data.load(catalog, company["companyId"], table_ids, tables):
                progress(f"  {loaded.name}: {loaded.rows:,} rows in {loaded.data_files} data files")
            progress(f"loaded in {time.monotonic() - began:.1f} s; timing DuckDB on the service's own files")
            files_baseline(snapshot_files(catalog, company["companyId"], table_ids), timings, args)
        finally:
            catalog.engine.dispose()

        analytics = AnalyticsClient(client, company["clientApiKey"], table_ids["lineitem"])
        progress(f"trivial query: {args.trivial_calls} calls")
        trivial = percentiles(
            _repeat(lambda: analytics.query(TRIVIAL_SQL), args.trivial_calls, max(3, args.warmup))
        )
        ended = analytics.query(TRIVIAL_SQL).job_id
        status = percentiles(
            _repeat(lambda: analytics.call("job-status", {"jobId": ended}), args.trivial_calls, 3)
        )
        for timing in timings:
            sql = trino_sql(timing.number)
            answer = analytics.query(sql)
            got = result_of_json(answer.columns, answer.rows)
            problems = differences(answers[timing.number], got, order_positions(timing.number))
            timing.check = "ok" if not problems else "DIFF"
            if problems:
                progress(f"  q{timing.number:02d} differs from the baseline: {problems[0][:300]}")

            def through_service(query: str = sql, timing: Timing = timing) -> object:
                answer = analytics.query(query)
                elapsed = answer.body.get("elapsedMs")
                if isinstance(elapsed, int | float):
                    timing.job_ms.append(float(elapsed))
                return answer

            # The checked call above already warmed this query up.
            timing.service_ms = _repeat(through_service, args.repetitions, max(0, args.warmup - 1))
            progress(f"  service q{timing.number:02d}: median {timing.service_median:,.1f} ms")
            if timing.rows > LARGE_RESULT_ROWS:
                downloaded = analytics.query_download(sql)
                if downloaded.num_rows != timing.rows:
                    raise RuntimeError(f"q{timing.number:02d} downloaded {downloaded.num_rows:,} rows")

                def through_download(query: str = sql) -> object:
                    return analytics.query_download(query)

                timing.download_ms = _repeat(through_download, args.repetitions, 0)
                median = statistics.median(timing.download_ms)
                progress(f"  service q{timing.number:02d} as a Parquet download: median {median:,.1f} ms")
    return Calls(trivial, status)


def _geomean(ratios: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(r) for r in ratios))


def report(args: argparse.Namespace, timings: list[Timing], calls: Calls | None) -> None:
    header = (
        f"{'query':<7}{'rows':>8}{'service ms':>13}{'duckdb ms':>12}{'ratio':>9}"
        f"{'same files ms':>15}{'ratio':>9}{'job ms':>9}  check"
    )
    print()
    print(f"TPC-H sf={args.sf:g}, {args.threads} DuckDB threads, median of {args.repetitions} runs")
    print(header)
    print("-" * len(header))
    for t in timings:
        service = "-" if t.service_median is None else f"{t.service_median:,.1f}"
        ratio = "-" if t.ratio is None else f"{t.ratio:.2f}"
        files = "-" if t.files_median is None else f"{t.files_median:,.1f}"
        files_ratio = "-" if t.files_ratio is None else f"{t.files_ratio:.2f}"
        job = "-" if not t.job_ms else f"{statistics.median(t.job_ms[-args.repetitions :]):,.0f}"
        print(
            f"q{t.number:02d}{t.rows:>12,}{service:>13}{t.baseline_median:>12,.1f}{ratio:>9}"
            f"{files:>15}{files_ratio:>9}{job:>9}  {t.check}"
        )
    print("-" * len(header))
    baseline_total = sum(t.baseline_median for t in timings)
    ratios = [t.ratio for t in timings if t.ratio is not None]
    if ratios:
        service_total = sum(t.service_median or 0.0 for t in timings)
        geomean = _geomean(ratios)
        verdict = "met" if geomean <= TARGET_GEOMEAN_RATIO else "MISSED"
        print(f"{'total':<7}{'':>8}{service_total:>13,.1f}{baseline_total:>12,.1f}")
        print(
            f"geometric mean of the ratios to one Parquet file per table: {geomean:.2f} "
            f"(target <= {TARGET_GEOMEAN_RATIO}: {verdict})"
        )
        same = [t.files_ratio for t in timings if t.files_ratio is not None]
        if same:
            same_geomean = _geomean(same)
            same_verdict = "met" if same_geomean <= TARGET_GEOMEAN_RATIO else "MISSED"
            print(
                f"geometric mean of the ratios to DuckDB on the service's own data files: {same_geomean:.2f} "
                f"(target <= {TARGET_GEOMEAN_RATIO}: {same_verdict})"
            )
        failed = [t.number for t in timings if t.check != "ok"]
        print("answers: all agree with the baseline" if not failed else f"answers DIFFER: {failed}")
    else:
        print(f"{'total':<7}{'':>8}{'-':>13}{baseline_total:>12,.1f}")
    for t in timings:
        if t.download_ms:
            median = statistics.median(t.download_ms)
            read_ratio = median / t.baseline_median
            verdict = "met" if read_ratio <= TARGET_LARGE_READ_RATIO else "MISSED"
            print(
                f"q{t.number:02d} ({t.rows:,} rows) read as the job's Parquet download: {median:,.1f} ms "
                f"against {t.baseline_median:,.1f} ms, {read_ratio:.2f}x "
                f"(target <= {TARGET_LARGE_READ_RATIO}: {verdict})"
            )
    if calls is not None:
        trivial = calls.trivial
        verdict = "met" if trivial.p50 <= TARGET_TRIVIAL_P50_MS else "MISSED"
        print(
            f"trivial query ({TRIVIAL_SQL}) p50/p95: {trivial.p50:.1f}/{trivial.p95:.1f} ms "
            f"over {args.trivial_calls} calls (target p50 <= {TARGET_TRIVIAL_P50_MS:.0f} ms: {verdict})"
        )
        status = calls.status
        print(f"reference: an authenticated /job-status call p50/p95 {status.p50:.1f}/{status.p95:.1f} ms")
        _print_floors(timings, trivial.p50)


def _print_floors(timings: list[Timing], fixed_ms: float) -> None:
    """The ratio split in two, against DuckDB on the same files: the jobs' own runs, and the floor a query
    costing DuckDB's time plus the trivial query's p50 would reach."""
    runs = [statistics.median(t.job_ms) / t.files_median for t in timings if t.job_ms and t.files_median]
    floors = [(t.files_median + fixed_ms) / t.files_median for t in timings if t.files_median]
    if runs:
        print(f"reference: the jobs' own runs (job ms) against the same files, geomean {_geomean(runs):.2f}")
    if floors:
        print(
            f"reference: DuckDB on the same files plus the trivial query's p50 ({fixed_ms:.1f} ms), "
            f"geometric mean {_geomean(floors):.2f}"
        )


def main() -> int:
    args = _arguments()
    calls: Calls | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-tpch-", ignore_cleanup_errors=True) as tmp:
            progress(f"generating TPC-H sf={args.sf:g}")
            began = time.monotonic()
            tables = data.generate(args.sf, threads=args.threads)
            rows = sum(t.num_rows for t in tables.values())
            progress(f"generated {rows:,} rows in {time.monotonic() - began:.1f} s")
            paths = data.write_parquet(tables, Path(tmp) / "parquet")
            size = sum(p.stat().st_size for p in paths.values())
            progress(f"wrote {size / 2**20:,.0f} MiB of Parquet; timing the baseline")
            timings, answers = parquet_baseline(paths, args)
            if not args.baseline_only:
                data_dir = Path(tmp) / "data"
                extra = {
                    "SVC_QUERY_THREADS": str(args.threads),
                    "SVC_QUERY_MEMORY_LIMIT": MEMORY_LIMIT,
                    "SVC_RATE_LIMIT_PER_MINUTE": "1000000",
                    "SVC_RATE_LIMIT_PER_DAY": "100000000",
                } | stack_settings(args.set)
                progress("starting svc up")
                with running_stack(data_dir, extra) as stack:
                    progress(f"svc is up at {stack.url}")
                    calls = service_run(stack, data_dir, tables, timings, answers, args)
                    progress("stopping svc up")
        report(args, timings, calls)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
