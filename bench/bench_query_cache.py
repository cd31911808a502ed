"""Answers from the query result cache against the same queries run, in the same run.

``svc up`` with one table: TPC-H ``lineitem`` (about 200,000 rows at the default scale factor 0.034, appended
into its Iceberg table with the service's writer). Each query is sent N times with ``useQueryCache`` false
(it runs every time) and N times with the cache on (after the first, every answer is a cache hit), each call
a /query with ``waitMs`` timed from the request until its answer (the job SUCCEEDED, its preview included) on
a kept-alive loopback connection, so the figure is the service's time plus a loopback round trip. Every
cached answer is checked to be a hit with the same preview as the run. Reported per query: p50/p95/p99 of
both and the ratio of the p50s; target: cached p50 <= 5 ms (issue 47). Times are printed, never asserted.

    .venv/bin/python bench/bench_query_cache.py [--sf 0.034] [--calls 50]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import httpx
from _common import REPO, Percentiles, percentiles, progress, running_stack

from sinks.iceberg import catalog as iceberg

sys.path.insert(0, str(REPO))
from tests.tpch import data
from tests.tpch.service import AnalyticsClient, create_tables

TARGET_CACHED_P50_MS = 5.0
QUERIES = {
    "aggregate": (
        "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS qty, avg(l_extendedprice) AS price, "
        "count(*) AS n FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2"
    ),
    "rows": "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 1000",
}


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sf", type=float, default=0.034, help="TPC-H scale factor (0.034: ~200k lineitems)")
    parser.add_argument("--calls", type=int, default=50, help="timed calls per query and side")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per query and side first")
    args = parser.parse_args()
    if args.sf <= 0 or args.calls < 2 or args.warmup < 1:
        parser.error("--sf > 0, --calls >= 2 and --warmup >= 1 are needed")
    return args


def _timed_query(analytics: AnalyticsClient, sql: str, use_cache: bool) -> tuple[float, dict[str, Any]]:
    body = {"sql": sql, "waitMs": 20_000, "useQueryCache": use_cache}
    start = time.perf_counter()
    answer = analytics.call("query", body)
    elapsed = (time.perf_counter() - start) * 1000
    if answer["state"] != "SUCCEEDED":
        raise RuntimeError(f"the query ended {answer['state']}: {answer.get('error')}")
    return elapsed, answer


def _side(analytics: AnalyticsClient, sql: str, use_cache: bool, args: argparse.Namespace) -> Percentiles:
    expected: dict[str, Any] | None = None
    samples: list[float] = []
    for call in range(args.warmup + args.calls):
        elapsed, answer = _timed_query(analytics, sql, use_cache)
        if answer["cacheHit"] is not use_cache and (not use_cache or call > 0):
            raise RuntimeError(f"call {call}: cacheHit {answer['cacheHit']} with useQueryCache {use_cache}")
        if expected is None:
            expected = answer["preview"]
        elif answer["preview"] != expected:
            raise RuntimeError(f"call {call}: the preview differs from the first call's")
        if call >= args.warmup:
            samples.append(elapsed)
    return percentiles(samples)


def main() -> int:
    args = _arguments()
    results: dict[str, tuple[Percentiles, Percentiles]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-cache-", ignore_cleanup_errors=True) as tmp:
            progress(f"generating TPC-H sf={args.sf:g}")
            lineitem = data.generate(args.sf)["lineitem"]
            progress(f"lineitem: {lineitem.num_rows:,} rows")
            data_dir = Path(tmp) / "data"
            extra = {"SVC_RATE_LIMIT_PER_MINUTE": "1000000", "SVC_RATE_LIMIT_PER_DAY": "100000000"}
            with running_stack(data_dir, extra) as stack:
                progress(f"svc is up at {stack.url}")
                company = stack.admin(
                    "create-company", "--name", "Cache Bench", "--admin-email", "admin@cache.example"
                )
                with httpx.Client(base_url=stack.url, timeout=120) as client:
                    ids = create_tables(
                        client, company["poweruserKey"], {"lineitem": data.create_request("lineitem")}
                    )
                    catalog = iceberg.make_catalog(
                        f"sqlite:///{data_dir / 'svc.db'}", str(data_dir / "warehouse")
                    )
                    try:
                        data.load(catalog, company["companyId"], ids, {"lineitem": lineitem})
                    finally:
                        catalog.engine.dispose()
                    analytics = AnalyticsClient(client, company["clientApiKey"], ids["lineitem"])
                    for name, sql in QUERIES.items():
                        progress(f"{name}: {args.calls} calls run, then {args.calls} from the cache")
                        ran = _side(analytics, sql, False, args)
                        cached = _side(analytics, sql, True, args)
                        results[name] = (ran, cached)
                progress("stopping svc up")
    except Exception:
        traceback.print_exc()
        return 1
    _report(args, lineitem.num_rows, results)
    return 0


def _report(args: argparse.Namespace, rows: int, results: dict[str, tuple[Percentiles, Percentiles]]) -> None:
    print()
    print(f"/query with waitMs over lineitem ({rows:,} rows), {args.calls} calls per side, p50/p95/p99 ms")
    header = f"{'query':<11}{'run':>22}{'from the cache':>22}{'p50 ratio':>11}"
    print(header)
    print("-" * len(header))
    for name, (ran, cached) in results.items():
        print(f"{name:<11}{ran!s:>22}{cached!s:>22}{ran.p50 / cached.p50:>10.1f}x")
    worst = max(cached.p50 for _, cached in results.values())
    verdict = "met" if worst <= TARGET_CACHED_P50_MS else "MISSED"
    print(f"cached p50 (worst query): {worst:.2f} ms (target <= {TARGET_CACHED_P50_MS:.0f} ms: {verdict})")


if __name__ == "__main__":
    sys.exit(main())
