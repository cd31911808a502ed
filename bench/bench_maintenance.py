"""Analytic queries on a table after many small append commits, before and after compaction, beside a freshly
loaded table with the same rows; and the append commit p99 while a compaction runs, beside the p99 without.

The table (eight typical columns, partitioned by month) is built with the service's own writer
(``sinks.iceberg.writer.append``, the table writer's commit: exactly-once ids, durable files, manifest merge),
one commit per small batch, ``--commits`` of them (default 10,000) over three months, as a steady feed
committed every second leaves it. The queries run on DuckDB over the tables' Iceberg metadata
(``iceberg_scan``, the reader the query jobs use, same threads and memory limit), timed as medians:

- **before**: the table after the commits, against a fresh table loaded with the same rows in one commit;
- **after**: the same table after the service's compaction (``sinks.iceberg.maintenance.maintain`` with
  COMPACT, called until nothing is left, at the default caps), against a fresh table of its rows then.

Appends: ``--appends`` timed commits of one small batch each into the same table, one every
``--append-interval`` seconds at most (the table writer's commit interval), first with nothing else running,
then while up to ``--busy-calls`` compaction calls run on another thread of the same process (as in the
worker, where the table writer and the automatic maintenance share a process); a call that lost every commit
race to the appends is counted. Reported: the geometric means of
the query ratios after/fresh (target <= 1.2) and before/fresh, and the append p50/p99/max in both phases.
Every answer of the compacted table is checked against the fresh table's. Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
from _common import percentiles, progress

from schemas.column_types import ColumnDef, parse_column_type
from schemas.maintenance import MaintenanceAction
from schemas.settings import Settings
from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from sinks.iceberg.auto_maintenance import limits_of
from sinks.iceberg.convert import rows_to_arrow
from sinks.iceberg.maintenance import maintain

TARGET_AFTER_RATIO = 1.2
COMPANY = "c" * 32
MEMORY_LIMIT = "2GB"  # the service's default query_memory_limit
COLUMNS = [
    ColumnDef("order_id", parse_column_type("LONG"), False, False),
    ColumnDef("customer", parse_column_type("STRING"), True, False),
    ColumnDef("amount", parse_column_type("DECIMAL(12,2)"), True, False),
    ColumnDef("placed_at", parse_column_type("TIMESTAMPTZ"), True, False),
    ColumnDef("paid", parse_column_type("BOOLEAN"), True, False),
    ColumnDef("weight_kg", parse_column_type("DOUBLE"), True, False),
    ColumnDef("region", parse_column_type("STRING"), True, False),
    ColumnDef("ship_date", parse_column_type("DATE"), True, False),
]
PARTITION = [("placed_at", "MONTH")]
SPAN_START = datetime(2026, 1, 1, tzinfo=UTC)
SPAN_SECONDS = 90 * 86_400
REGIONS = ["EU", "US", "APAC", "LATAM", "MEA"]
QUERIES = {
    "count_sum": "SELECT count(*) AS n, sum(amount) AS total FROM {t}",
    "by_month": (
        "SELECT date_trunc('month', placed_at) AS m, count(*) AS n, sum(amount) AS total "
        "FROM {t} GROUP BY 1 ORDER BY 1"
    ),
    "top_customers": (
        "SELECT customer, sum(amount) AS total FROM {t} GROUP BY 1 ORDER BY total DESC, customer LIMIT 10"
    ),
    "one_month_distinct": (
        "SELECT count(DISTINCT customer) AS n FROM {t} "
        "WHERE placed_at >= TIMESTAMPTZ '2026-02-01 00:00:00+00' "
        "AND placed_at < TIMESTAMPTZ '2026-03-01 00:00:00+00'"
    ),
    "region_paid": (
        "SELECT region, paid, count(*) AS n, round(avg(weight_kg), 6) AS w "
        "FROM {t} GROUP BY 1, 2 ORDER BY 1, 2"
    ),
    "point_lookup": "SELECT order_id, customer, amount FROM {t} WHERE order_id = {probe}",
}


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commits", type=int, default=10_000, help="append commits (default 10,000)")
    parser.add_argument("--rows-per-commit", type=int, default=100, help="rows per append commit")
    parser.add_argument("--repetitions", type=int, default=5, help="timed runs per query and table")
    parser.add_argument("--appends", type=int, default=100, help="timed appends without compaction")
    parser.add_argument("--threads", type=int, default=2, help="DuckDB threads")
    parser.add_argument(
        "--append-interval", type=float, default=1.0, help="seconds between append commits (the writer's)"
    )
    parser.add_argument(
        "--busy-calls", type=int, default=3, help="compaction calls at most while the appends run"
    )
    args = parser.parse_args()
    if args.commits < 2 or args.rows_per_commit < 1 or args.repetitions < 1 or args.appends < 2:
        parser.error("--commits >= 2, --rows-per-commit >= 1, --repetitions >= 1 and --appends >= 2")
    return args


class Feed:
    """Small batches of orders, each with its load id, in the order they are committed."""

    def __init__(self, rows_per_batch: int) -> None:
        self.rows_per_batch = rows_per_batch
        self.random = random.Random(7)
        self.next_id = 1
        self.batches: list[tuple[str, pa.Table]] = []

    def batch(self) -> tuple[str, pa.Table]:
        rows: list[dict[str, Any]] = []
        for _ in range(self.rows_per_batch):
            placed = SPAN_START + timedelta(seconds=self.random.randrange(SPAN_SECONDS))
            rows.append(
                {
                    "order_id": self.next_id,
                    "customer": f"customer-{self.random.randrange(5_000):05d}",
                    "amount": f"{self.random.randrange(100, 100_000) / 100:.2f}",
                    "placed_at": placed.isoformat(),
                    "paid": self.random.random() < 0.8,
                    "weight_kg": round(self.random.uniform(0.1, 40.0), 3),
                    "region": self.random.choice(REGIONS),
                    "ship_date": (placed + timedelta(days=self.random.randrange(1, 8))).date().isoformat(),
                }
            )
            self.next_id += 1
        load_id = uuid.uuid4().hex
        made = (load_id, rows_to_arrow(COLUMNS, rows, load_id=load_id, first_record_id=0).table)
        self.batches.append(made)
        return made


@dataclass
class Tables:
    root: Path
    catalog: Any = field(init=False)

    def __post_init__(self) -> None:
        self.catalog = iceberg.make_catalog(
            f"sqlite:///{self.root / 'catalog.db'}", str(self.root / "warehouse")
        )

    def create(self) -> Any:
        table_id = uuid.uuid4().hex
        iceberg.create_table(self.catalog, COMPANY, table_id, COLUMNS, PARTITION)
        return iceberg.load_table(self.catalog, COMPANY, table_id)

    def reopen(self, table: Any) -> Any:
        """A handle of its own (another catalog connection) for a second thread."""
        other = iceberg.make_catalog(f"sqlite:///{self.root / 'catalog.db'}", str(self.root / "warehouse"))
        return other.load_table(table.name())

    def fresh(self, batches: list[tuple[str, pa.Table]]) -> Any:
        """A table loaded with ``batches`` in one commit: the same rows, load ids and record ids."""
        table = self.create()
        writer.append(table, batches)
        table.refresh()
        return table


def data_files(table: Any) -> int:
    table.refresh()
    return len(table.inspect.data_files())


def shape(table: Any) -> str:
    """What a reader opens besides the data: the snapshots in the metadata file, the current manifests."""
    table.refresh()
    snapshot = table.current_snapshot()
    manifests = len(snapshot.manifests(table.io)) if snapshot is not None else 0
    return f"{len(table.metadata.snapshots)} snapshots, {manifests} manifests, {data_files(table)} data files"


def run_query(duck: Any, table: Any, name: str, probe: int) -> list[tuple[Any, ...]]:
    source = f"iceberg_scan('{table.metadata_location}')"
    rows: list[tuple[Any, ...]] = duck.execute(QUERIES[name].format(t=source, probe=probe)).fetchall()
    return rows


def time_queries(duck: Any, table: Any, repetitions: int, probe: int) -> dict[str, float]:
    """Median milliseconds per query (one untimed run first)."""
    table.refresh()
    medians: dict[str, float] = {}
    for name in QUERIES:
        run_query(duck, table, name, probe)
        samples = []
        for _ in range(repetitions):
            start = time.perf_counter()
            run_query(duck, table, name, probe)
            samples.append((time.perf_counter() - start) * 1000)
        medians[name] = statistics.median(samples)
    return medians


def geomean(ratios: list[float]) -> float:
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


@dataclass
class Appends:
    ms: list[float] = field(default_factory=list)
    retried: int = 0  # appends that lost a race (to the compaction commit) and committed again

    def summary(self) -> str:
        found = percentiles(self.ms)
        return f"{found}  (max {max(self.ms):.1f}, n={len(self.ms)}, retried {self.retried})"


def timed_appends(
    table: Any, feed: Feed, interval: float, count: int | None, until: threading.Event | None
) -> Appends:
    """Each append commit's milliseconds: ``count`` of them, or as many as fit until ``until`` is set. A
    commit starts at most every ``interval`` seconds, as the table writer commits a busy table."""
    found = Appends()
    while (count is None or len(found.ms) < count) and not (until is not None and until.is_set()):
        batch = feed.batch()
        start = time.perf_counter()
        outcome = writer.append(table, [batch])
        took = time.perf_counter() - start
        found.ms.append(took * 1000)
        found.retried += outcome.attempts > 1
        time.sleep(max(0.0, interval - took))
    return found


@dataclass
class Compaction:
    calls: int = 0
    uncommitted: int = 0  # calls that rewrote files but lost every commit race to the appends
    seconds: float = 0.0


def compact_all(table: Any, settings: Settings, max_calls: int = 1_000) -> Compaction:
    """Compaction calls until nothing is left, or ``max_calls``."""
    limits = limits_of(settings)
    found = Compaction()
    start = time.perf_counter()
    while found.calls < max_calls:
        found.calls += 1
        report = maintain(table, [MaintenanceAction.COMPACT], limits, now=datetime.now(UTC), dry_run=False)
        found.uncommitted += report.more_to_compact and report.files_after >= report.files_before
        if not report.more_to_compact:
            break
    found.seconds = time.perf_counter() - start
    return found


def print_queries(title: str, measured: dict[str, float], fresh: dict[str, float]) -> float:
    print(f"\n{title}")
    print(f"{'query':<20} {'table ms':>10} {'fresh ms':>10} {'ratio':>7}")
    ratios = []
    for name in QUERIES:
        ratio = measured[name] / fresh[name]
        ratios.append(ratio)
        print(f"{name:<20} {measured[name]:>10.2f} {fresh[name]:>10.2f} {ratio:>7.2f}")
    mean = geomean(ratios)
    print(f"{'geomean':<20} {'':>10} {'':>10} {mean:>7.2f}")
    return mean


def main() -> int:
    args = _arguments()
    settings = Settings()
    with tempfile.TemporaryDirectory(prefix="svc-bench-maintenance-") as scratch:
        tables = Tables(Path(scratch))
        feed = Feed(args.rows_per_commit)
        table = tables.create()
        progress(f"{args.commits} append commits of {args.rows_per_commit} rows")
        started = time.perf_counter()
        for done in range(1, args.commits + 1):
            writer.append(table, [feed.batch()])
            if done % 500 == 0:
                progress(f"  {done} commits ({done / (time.perf_counter() - started):.0f}/s)")
        probe = feed.next_id // 2
        before_files = data_files(table)
        fresh = tables.fresh(list(feed.batches))
        duck = connect(threads=args.threads, memory_limit=MEMORY_LIMIT)
        progress(f"queries before compaction: table {shape(table)}; fresh table {shape(fresh)}")
        before = time_queries(duck, table, args.repetitions, probe)
        fresh_before = time_queries(duck, fresh, args.repetitions, probe)

        progress(f"{args.appends} timed appends, nothing else running")
        quiet = timed_appends(table, feed, args.append_interval, args.appends, None)
        progress("compaction, with appends committed meanwhile")
        compacting = threading.Event()
        busy = Appends()
        appender_table = tables.reopen(table)

        def append_while_compacting() -> None:
            nonlocal busy
            busy = timed_appends(appender_table, feed, args.append_interval, None, compacting)

        appender = threading.Thread(target=append_while_compacting)
        appender.start()
        try:
            during = compact_all(table, settings, args.busy_calls)
        finally:
            compacting.set()
            appender.join()
        # The appends that landed during the compaction are small files again: one more pass, quiet.
        settle = compact_all(table, settings)
        after_files = data_files(table)
        fresh_after = tables.fresh(list(feed.batches))
        progress(f"queries after compaction: table {shape(table)}; fresh table {shape(fresh_after)}")
        after = time_queries(duck, table, args.repetitions, probe)
        fresh_now = time_queries(duck, fresh_after, args.repetitions, probe)
        wrong = [
            name
            for name in QUERIES
            if sorted(map(repr, run_query(duck, table, name, probe)))
            != sorted(map(repr, run_query(duck, fresh_after, name, probe)))
        ]

    before_mean = print_queries("Before compaction vs a fresh table with the same rows", before, fresh_before)
    after_mean = print_queries("After compaction vs a fresh table with the same rows", after, fresh_now)
    print(
        f"\ncompaction while appending: {during.calls} calls in {during.seconds:.1f} s, "
        f"{during.uncommitted} of them lost every commit race; then quiet: {settle.calls} calls in "
        f"{settle.seconds:.1f} s, {settle.uncommitted} lost"
    )
    print(f"data files: {before_files} before, {after_files} after")
    print(f"append commit ms p50/p95/p99 without compaction: {quiet.summary()}")
    if len(busy.ms) >= 2:
        ratio = percentiles(busy.ms).p99 / percentiles(quiet.ms).p99
        print(f"append commit ms p50/p95/p99 during compaction:  {busy.summary()}  p99 ratio {ratio:.2f}")
    else:
        print(f"appends during compaction: only {len(busy.ms)} (the compaction was too short to measure)")
    print(
        f"\ngeomean before/fresh {before_mean:.2f}x, "
        f"after/fresh {after_mean:.2f}x (target <= {TARGET_AFTER_RATIO})"
    )
    print("answers after compaction equal the fresh table's: " + ("yes" if not wrong else f"NO: {wrong}"))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
