"""Latency of /get-execution-history over a webhook with a million stored executions.

The real stack runs as ``svc up``; the history is seeded straight into its SQLite file (going through the
pipeline would take hours). Each case is measured twice: through the endpoint, and as the raw SQL the
endpoint issues for it, run with sqlite3 on the same file. The ratio of the two p95s shows what the layers
above the database cost; the absolute endpoint p95 is compared with the 50 ms target. Then the console's
deliveries view is measured the same way a browser asks for it (``_console_pages.py``: signed in, over
HTTP; first page, status, time range, body text, inspector) against its 100 ms target. Times are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import bisect
import heapq
import itertools
import json
import random
import re
import sqlite3
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _console_pages as console_pages
import httpx
from _common import Percentiles, Stack, percentiles, progress, running_stack, timed

BASE = "/svc_poweruser/custom-webhooks"
TARGET_P95_MS = 50.0
PAGE_SIZE = 20
DEEP_PAGE = 2_500
SPAN = timedelta(days=30)

Row = tuple[str | int | None, ...]

# Attempts per delivery: most deliveries succeed at once, a few are retried (every attempt is an entry).
ATTEMPTS_CUM = [0.88, 0.97, 1.0]
# Earlier attempts of a retried delivery are FAILED, so the final attempt's mix is chosen to make the
# overall mix about 80% SUCCESS / 15% FAILED / 4% TRANSFORM_FAILED / 1% QUEUED.
FINAL_STATUSES = ["SUCCESS", "FAILED", "TRANSFORM_FAILED", "QUEUED"]
FINAL_CUM = list(itertools.accumulate([0.92, 0.0225, 0.046, 0.0115]))

WEBHOOK_CONFIG: dict[str, Any] = {
    "description": "Orders from the shop backend",
    "payloadTransformConfig": {
        "transformType": "JSONPATH",
        "jsonPathMappings": {"orderId": "$.orderId", "customerEmail": "$.customer.email", "total": "$.total"},
    },
}

# %-templates instead of json.dumps: formatting a million documents with json would dominate the seed.
PAYLOAD = (
    '{"event":"order.created","orderId":"ord_%010d","createdAt":"%s",'
    '"customer":{"id":"cus_%08d","email":"customer%d@shop.example","tier":"gold"},'
    '"items":[{"sku":"SKU-%05d","quantity":%d,"unitPrice":%d.99},'
    '{"sku":"SKU-%05d","quantity":%d,"unitPrice":%d.49}],'
    '"shipping":{"method":"express","address":{"line1":"%d Market Street","city":"Springfield",'
    '"postalCode":"%05d","country":"US"}},"currency":"USD","total":%d.48,'
    '"metadata":{"channel":"web","campaign":"autumn-sale","session":"%032x"}}'
)
HEADERS = (
    '{"content-type":"application/json","user-agent":"shop-backend/4.2.%d","accept":"*/*",'
    '"x-request-id":"%032x","x-forwarded-for":"198.51.100.%d"}'
)
TRANSFORMED = '{"orderId":"ord_%010d","customerEmail":"customer%d@shop.example","total":"%d.48"}'
RESOURCE_REQUEST = (
    '{"tool":"order-review","input":{"orderId":"ord_%010d","customerEmail":"customer%d@shop.example",'
    '"total":"%d.48","currency":"USD","itemCount":2,"channel":"web"},'
    '"context":{"webhookId":"%s","executionId":"%s","attempt":%d,"trigger":"custom-webhook"}}'
)
RESPONSE_OK = (
    '{"status":"ok","result":{"orderId":"ord_%010d","fraudScore":0.%03d,"decision":"approve",'
    '"reviewer":"auto","notes":"order matched the customer profile; shipping address verified; '
    'no chargeback history on file","checks":["address","velocity","device"]},"model":"review-v3",'
    '"latencyMs":%d}'
)
RESPONSE_FAILED = (
    '{"status":"error","code":503,"message":"upstream unavailable: the order-review service answered '
    '503 Service Unavailable after %d ms","retryable":true,"details":{"orderId":"ord_%010d"}}'
)
RESOURCE_ID = "3f6c2a9e8d7b4c1a9e0f5d6c7b8a9e0f"
TRANSFORM_ERROR = "JSONPath $.total matched nothing in the payload"
FAILED_ERROR = "handler answered 503 Service Unavailable"

INSERT_PAYLOAD = (
    "INSERT INTO webhook_payloads (id, company_id, webhook_id, request_payload, request_headers) "
    "VALUES (?, ?, ?, ?, ?)"
)
INSERT_EXECUTION = (
    "INSERT INTO webhook_executions (id, execution_id, webhook_id, company_id, payload_id, attempt_number, "
    "status, resource_type, resource_id, queued_at, started_at, ended_at, duration_ms, webhook_name, "
    "http_method, source_ip, transform_type, transformed_variables, transform_error, resource_request_json, "
    "resource_response_json, error_message) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
QUEUED_AT = 9  # position of queued_at in an execution row

# The statements history_page and count issue (SQLAlchemy renders the IN list as one parameter per id).
COUNT_SQL = (
    "SELECT coalesce(sum(webhook_execution_counts.entries), ?) FROM webhook_execution_counts "
    "WHERE webhook_execution_counts.webhook_id = ?"
)
COUNT_STATUS_SQL = COUNT_SQL + " AND webhook_execution_counts.status = ?"
IDS_SQL = (
    "SELECT webhook_executions.id FROM webhook_executions "
    "WHERE webhook_executions.company_id = ? AND webhook_executions.webhook_id = ?{status} "
    "ORDER BY webhook_executions.queued_at DESC, webhook_executions.id DESC LIMIT ? OFFSET ?"
)
ROWS_SQL = (
    "SELECT webhook_executions.id, webhook_executions.execution_id, webhook_executions.webhook_id, "
    "webhook_executions.company_id, webhook_executions.payload_id, webhook_executions.attempt_number, "
    "webhook_executions.status, webhook_executions.resource_type, webhook_executions.resource_id, "
    "webhook_executions.queued_at, webhook_executions.started_at, webhook_executions.ended_at, "
    "webhook_executions.duration_ms, webhook_executions.webhook_name, webhook_executions.http_method, "
    "webhook_executions.source_ip, webhook_executions.transform_type, "
    "webhook_executions.transformed_variables, webhook_executions.transform_error, "
    "webhook_executions.resource_request_json, webhook_executions.resource_response_json, "
    "webhook_executions.error_message, webhook_payloads.request_payload, webhook_payloads.request_headers "
    "FROM webhook_executions JOIN webhook_payloads ON webhook_payloads.id = webhook_executions.payload_id "
    "WHERE webhook_executions.company_id = ? AND webhook_executions.id IN ({marks})"
)
# What SQLAlchemy writes for a DateTime on SQLite; checked against a row the app wrote before seeding.
STORED_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=1_000_000, help="history entries of the measured webhook")
    parser.add_argument(
        "--neighbour-rows", type=int, default=None, help="entries of a second webhook (default: rows / 10)"
    )
    parser.add_argument("--requests", type=int, default=300, help="measured requests per case")
    parser.add_argument("--deep-requests", type=int, default=60, help="measured requests of the deep page")
    parser.add_argument(
        "--console-requests", type=int, default=200, help="measured page requests per console case"
    )
    parser.add_argument("--batch", type=int, default=25_000, help="executions per seed transaction")
    parser.add_argument("--seed", type=int, default=20_261_101, help="random seed of the generated data")
    args = parser.parse_args()
    if args.rows < PAGE_SIZE * 2:
        parser.error(f"--rows must be at least {PAGE_SIZE * 2}")
    if args.requests < 2 or args.deep_requests < 2 or args.console_requests < 2:
        parser.error("at least two requests per case are needed for percentiles")
    return args


@dataclass(frozen=True)
class Target:
    company_id: str
    webhook_id: str
    name: str


@dataclass
class Seeded:
    counts: Counter[tuple[str, str]]
    newest: dict[str, tuple[str, str]]  # webhook id -> (queued_at, id) of its newest entry
    deliveries: int = 0


def _hex(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


def _stamp(moment: datetime) -> str:
    return moment.isoformat(sep=" ", timespec="microseconds")


@dataclass(frozen=True)
class Delivery:
    """What every attempt of one delivery shares."""

    target: Target
    n: int
    execution_id: str
    payload_id: str
    customer: int
    total: int


def _deliveries(
    rng: random.Random, target: Target, entries: int, start: datetime
) -> Iterator[tuple[Row, list[Row]]]:
    """A webhook's deliveries in time order over SPAN: the payload row and one row per attempt."""
    attempts: list[int] = []
    left = entries
    while left > 0:
        attempt_count = min(bisect.bisect(ATTEMPTS_CUM, rng.random()) + 1, left)
        attempts.append(attempt_count)
        left -= attempt_count
    step_us = SPAN / timedelta(microseconds=1) / len(attempts)
    for n, attempt_count in enumerate(attempts):
        queued = start + timedelta(microseconds=int((n + rng.random()) * step_us))
        delivery = Delivery(target, n, _hex(rng), _hex(rng), rng.randrange(10**6), rng.randrange(20, 900))
        rows: list[Row] = []
        for attempt in range(1, attempt_count + 1):
            if attempt < attempt_count:
                status = "FAILED"
            else:
                status = FINAL_STATUSES[bisect.bisect(FINAL_CUM, rng.random() * FINAL_CUM[-1])]
            if attempt > 1:
                # Retries back off: 30 s, then 2 min, plus jitter.
                queued += timedelta(seconds=30 * 4 ** (attempt - 2) + rng.random() * 10)
            rows.append(_execution(rng, delivery, status, attempt, queued))
        yield _payload(rng, delivery, rows[0][QUEUED_AT]), rows


def _payload(rng: random.Random, delivery: Delivery, queued_at: str | int | None) -> Row:
    document = PAYLOAD % (
        delivery.n,
        str(queued_at).replace(" ", "T")[:23] + "Z",
        delivery.customer,
        delivery.customer,
        rng.randrange(10**5),
        rng.randrange(1, 5),
        rng.randrange(5, 40),
        rng.randrange(10**5),
        rng.randrange(1, 3),
        rng.randrange(10, 60),
        rng.randrange(1, 9999),
        rng.randrange(10**5),
        delivery.total,
        rng.getrandbits(128),
    )
    headers = HEADERS % (rng.randrange(40), rng.getrandbits(128), rng.randrange(1, 255))
    return (delivery.payload_id, delivery.target.company_id, delivery.target.webhook_id, document, headers)


def _execution(rng: random.Random, delivery: Delivery, status: str, attempt: int, queued: datetime) -> Row:
    entry_id = _hex(rng)
    started = ended = duration = transformed = transform_error = request = response = error = None
    n, customer, total = delivery.n, delivery.customer, delivery.total
    if status != "QUEUED":
        begin = queued + timedelta(milliseconds=rng.randrange(2, 400))
        duration = rng.randrange(1, 40) if status == "TRANSFORM_FAILED" else rng.randrange(40, 2500)
        started, ended = _stamp(begin), _stamp(begin + timedelta(milliseconds=duration))
        if status == "TRANSFORM_FAILED":
            transform_error = TRANSFORM_ERROR
        else:
            transformed = TRANSFORMED % (n, customer, total)
            request = RESOURCE_REQUEST % (n, customer, total, delivery.target.webhook_id, entry_id, attempt)
            if status == "SUCCESS":
                response = RESPONSE_OK % (n, rng.randrange(1000), duration)
            else:
                response, error = RESPONSE_FAILED % (duration, n), FAILED_ERROR
    return (
        entry_id,
        delivery.execution_id,
        delivery.target.webhook_id,
        delivery.target.company_id,
        delivery.payload_id,
        attempt,
        status,
        "TOOL",
        RESOURCE_ID,
        _stamp(queued),
        started,
        ended,
        duration,
        delivery.target.name,
        "POST",
        f"203.0.113.{rng.randrange(1, 255)}",
        "JSONPATH",
        transformed,
        transform_error,
        request,
        response,
        error,
    )


def _check_templates() -> None:
    """Fail before seeding if a template does not yield valid JSON."""
    rng = random.Random(0)
    delivery = Delivery(Target("c" * 32, "w" * 32, "orders"), 1, "e" * 32, "p" * 32, 2, 3)
    moment = datetime(2026, 11, 1, 12, 0)  # noqa: DTZ001 - stored datetimes are naive UTC
    payload = _payload(rng, delivery, _stamp(moment))
    success = _execution(rng, delivery, "SUCCESS", 1, moment)
    failed = _execution(rng, delivery, "FAILED", 2, moment)
    for document in (payload[3], payload[4], success[17], success[19], success[20], failed[20]):
        json.loads(str(document))
    progress(
        f"one entry reads {len(str(payload[3]))} B payload, {len(str(payload[4]))} B headers, "
        f"{len(str(success[19]))} B resource request, {len(str(success[20]))} B response"
    )


def seed(db_path: Path, targets: list[tuple[Target, int]], batch: int, rng_seed: int) -> Seeded:
    rng = random.Random(rng_seed)
    start = datetime.now(UTC).replace(tzinfo=None) - SPAN
    streams = [_deliveries(rng, target, entries, start) for target, entries in targets]
    # Deliveries of all webhooks interleaved by time, as they arrive in production, so rowids of one
    # webhook's consecutive entries are as close together as they would really be.
    merged = heapq.merge(*streams, key=lambda delivery: delivery[1][0][QUEUED_AT] or "")
    seeded = Seeded(counts=Counter(), newest={})
    total_entries = sum(entries for _, entries in targets)
    connection = sqlite3.connect(db_path, timeout=60, isolation_level=None)
    try:
        # Safe only because a crash mid-seed just fails the benchmark run; the app's own pragmas stay.
        connection.execute("PRAGMA synchronous=OFF")
        # Rows are keyed by random hex ids; a big cache keeps those scattered B-tree inserts in memory.
        connection.execute("PRAGMA cache_size=-1048576")
        payloads: list[Row] = []
        entries: list[Row] = []
        written = 0
        last_report = time.monotonic()

        def flush() -> None:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(INSERT_PAYLOAD, payloads)
            connection.executemany(INSERT_EXECUTION, entries)
            connection.execute("COMMIT")
            payloads.clear()
            entries.clear()

        for payload, rows in merged:
            seeded.deliveries += 1
            payloads.append(payload)
            entries.extend(rows)
            for row in rows:
                webhook_id, status, key = str(row[2]), str(row[6]), (str(row[QUEUED_AT]), str(row[0]))
                seeded.counts[webhook_id, status] += 1
                if key > seeded.newest.get(webhook_id, ("", "")):
                    seeded.newest[webhook_id] = key
            if len(entries) >= batch:
                written += len(entries)
                flush()
                if time.monotonic() - last_report > 10:
                    last_report = time.monotonic()
                    progress(f"  seeded {written:,} / {total_entries:,} entries")
        if entries:
            flush()
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(
            "INSERT INTO webhook_execution_counts (webhook_id, status, entries) VALUES (?, ?, ?) "
            "ON CONFLICT (webhook_id, status) DO UPDATE SET entries = excluded.entries",
            [(webhook_id, status, n) for (webhook_id, status), n in sorted(seeded.counts.items())],
        )
        connection.execute("COMMIT")
    finally:
        connection.close()
    return seeded


def analyze(db_path: Path) -> None:
    connection = sqlite3.connect(db_path, timeout=60, isolation_level=None)
    try:
        connection.execute("ANALYZE")
        # Folds the seed's WAL into the main file so the measured reads do not walk a huge WAL index.
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


@dataclass(frozen=True)
class Case:
    name: str
    status: str | None
    pages: list[int]  # page of the i-th request, cycled
    repetitions: int

    def page(self, i: int) -> int:
        return self.pages[i % len(self.pages)]


class Endpoint:
    def __init__(self, client: httpx.Client, key: str, webhook_id: str) -> None:
        self.client = client
        self.headers = {"Authorization": key}
        self.webhook_id = webhook_id

    def call(self, page: int, status: str | None, size: int = PAGE_SIZE) -> httpx.Response:
        body: dict[str, Any] = {"webhookId": self.webhook_id, "page": page, "size": size}
        if status is not None:
            body["status"] = status
        answer = self.client.post(f"{BASE}/get-execution-history", json=body, headers=self.headers)
        if answer.status_code != 200:
            raise RuntimeError(f"get-execution-history answered {answer.status_code}: {answer.text[:300]}")
        return answer

    def history(self, page: int, status: str | None, size: int = PAGE_SIZE) -> dict[str, Any]:
        result: dict[str, Any] = self.call(page, status, size).json()
        return result


class RawSql:
    """The endpoint's database work for one page, without HTTP, auth, the ORM or serialisation."""

    def __init__(self, db_path: Path, company_id: str, webhook_id: str) -> None:
        # Default cache size and a fresh connection, like each pooled connection of the app.
        self.connection = sqlite3.connect(db_path, timeout=30)
        self.connection.execute("PRAGMA busy_timeout=10000")
        self.company_id = company_id
        self.webhook_id = webhook_id

    def statements(self, page: int, status: str | None) -> tuple[str, list[Any], str, list[Any]]:
        if status is None:
            count_sql, count_params = COUNT_SQL, [0, self.webhook_id]
            ids_sql = IDS_SQL.format(status="")
            ids_params: list[Any] = [self.company_id, self.webhook_id, PAGE_SIZE, page * PAGE_SIZE]
        else:
            count_sql, count_params = COUNT_STATUS_SQL, [0, self.webhook_id, status]
            ids_sql = IDS_SQL.format(status=" AND webhook_executions.status = ?")
            ids_params = [self.company_id, self.webhook_id, status, PAGE_SIZE, page * PAGE_SIZE]
        return count_sql, count_params, ids_sql, ids_params

    def page(self, page: int, status: str | None) -> list[str]:
        count_sql, count_params, ids_sql, ids_params = self.statements(page, status)
        self.connection.execute(count_sql, count_params).fetchone()
        ids = [row[0] for row in self.connection.execute(ids_sql, ids_params)]
        if not ids:
            return []
        rows_sql = ROWS_SQL.format(marks=", ".join("?" * len(ids)))
        by_id = {row[0]: row for row in self.connection.execute(rows_sql, [self.company_id, *ids])}
        return [entry_id for entry_id in ids if entry_id in by_id]

    def plans(self, page: int, status: str | None) -> list[str]:
        _, _, ids_sql, ids_params = self.statements(page, status)
        ids = [row[0] for row in self.connection.execute(ids_sql, ids_params)] or ["none"]
        rows_sql = ROWS_SQL.format(marks=", ".join("?" * len(ids)))
        lines: list[str] = []
        for label, sql, params in (("ids", ids_sql, ids_params), ("rows", rows_sql, [self.company_id, *ids])):
            for plan in self.connection.execute(f"EXPLAIN QUERY PLAN {sql}", params):
                lines.append(f"{label}: {plan[3]}")
        return lines

    def close(self) -> None:
        self.connection.close()


@dataclass(frozen=True)
class Result:
    case: Case
    endpoint: Percentiles
    raw: Percentiles
    plan: list[str]


def measure(case: Case, endpoint: Endpoint, raw: RawSql) -> Result:
    expected = endpoint.history(case.page(0), case.status)
    if len(expected["history"]) != PAGE_SIZE:
        raise RuntimeError(f"{case.name}: expected a full page, got {len(expected['history'])} entries")
    # The baseline is only comparable if it reads exactly the page the endpoint answers.
    if raw.page(case.page(0), case.status) != [entry["id"] for entry in expected["history"]]:
        raise RuntimeError(f"{case.name}: the raw SQL returns other entries than the endpoint")
    warmup = max(5, case.repetitions // 10)

    def via_endpoint(i: int) -> None:
        endpoint.call(case.page(i), case.status)

    def via_sql(i: int) -> None:
        raw.page(case.page(i), case.status)

    endpoint_ms = timed(via_endpoint, case.repetitions, warmup)
    raw_ms = timed(via_sql, case.repetitions, warmup)
    return Result(case, percentiles(endpoint_ms), percentiles(raw_ms), raw.plans(case.page(0), case.status))


def report(results: list[Result]) -> None:
    header = (
        f"{'case':<28}{'endpoint p50/p95/p99 ms':>26}{'raw-sql p50/p95/p99 ms':>26}"
        f"{'ratio(p95)':>12}  target (p95 <= {TARGET_P95_MS:.0f} ms)"
    )
    print()
    print(header)
    print("-" * len(header))
    for result in results:
        ratio = result.endpoint.p95 / result.raw.p95 if result.raw.p95 > 0 else float("inf")
        verdict = "met" if result.endpoint.p95 <= TARGET_P95_MS else "MISSED"
        print(f"{result.case.name:<28}{result.endpoint!s:>26}{result.raw!s:>26}{ratio:>11.1f}x  {verdict}")
    print()
    print("query plans (EXPLAIN QUERY PLAN of the raw statements):")
    for result in results:
        print(f"  {result.case.name}")
        for line in result.plan:
            print(f"    {line}")


def _verify(endpoint: Endpoint, seeded: Seeded, target: Target, rows: int) -> None:
    first = endpoint.history(0, None)
    if first["totalElements"] != rows:
        raise RuntimeError(f"totalElements is {first['totalElements']}, expected {rows}")
    newest_id = seeded.newest[target.webhook_id][1]
    if first["history"][0]["id"] != newest_id:
        raise RuntimeError(f"the first entry is {first['history'][0]['id']}, expected {newest_id}")
    failed = endpoint.history(0, "FAILED")["totalElements"]
    if failed != seeded.counts[target.webhook_id, "FAILED"]:
        expected = seeded.counts[target.webhook_id, "FAILED"]
        raise RuntimeError(f"FAILED totalElements is {failed}, expected {expected}")


def _stored_datetime_format(db_path: Path, webhook_id: str) -> None:
    connection = sqlite3.connect(db_path, timeout=30)
    try:
        row = connection.execute("SELECT created_at FROM webhooks WHERE id = ?", (webhook_id,)).fetchone()
    finally:
        connection.close()
    if row is None or not STORED_DATETIME.match(str(row[0])):
        raise RuntimeError(f"the app stores datetimes as {row!r}; the seed's format would not match")


def _create_webhook(client: httpx.Client, key: str, name: str) -> str:
    answer = client.post(
        f"{BASE}/create",
        json={"webhookConfig": {"name": name, **WEBHOOK_CONFIG}},
        headers={"Authorization": key},
    )
    if answer.status_code != 200:
        raise RuntimeError(f"create answered {answer.status_code}: {answer.text[:300]}")
    webhook_id: str = answer.json()["webhook"]["id"]
    return webhook_id


def run(
    stack: Stack, data_dir: Path, args: argparse.Namespace
) -> tuple[list[Result], list[console_pages.PageResult]]:
    db_path = data_dir / "svc.db"
    company = stack.admin("create-company", "--name", "Bench Shop", "--admin-email", "admin@bench.example")
    key, company_id = company["poweruserKey"], company["companyId"]
    with httpx.Client(base_url=stack.url, timeout=60) as client:
        measured = Target(company_id, _create_webhook(client, key, "orders"), "orders")
        neighbour = Target(company_id, _create_webhook(client, key, "refunds"), "refunds")
        _stored_datetime_format(db_path, measured.webhook_id)
        neighbour_rows = args.rows // 10 if args.neighbour_rows is None else args.neighbour_rows

        _check_templates()
        progress(f"seeding {args.rows:,} + {neighbour_rows:,} entries into {db_path}")
        began = time.monotonic()
        seeded = seed(db_path, [(measured, args.rows), (neighbour, neighbour_rows)], args.batch, args.seed)
        inserted = time.monotonic() - began
        analyze(db_path)
        seed_seconds = time.monotonic() - began
        mix = {status: seeded.counts[measured.webhook_id, status] / args.rows for status in FINAL_STATUSES}
        progress(
            f"seed done in {seed_seconds:.1f} s "
            f"({inserted:.1f} s inserting {seeded.deliveries:,} deliveries, "
            f"{seed_seconds - inserted:.1f} s ANALYZE + checkpoint); DB file "
            f"{db_path.stat().st_size / 2**20:,.0f} MiB; mix "
            + ", ".join(f"{status} {share:.1%}" for status, share in mix.items())
        )

        endpoint = Endpoint(client, key, measured.webhook_id)
        _verify(endpoint, seeded, measured, args.rows)
        progress(f"API reports totalElements == {args.rows:,}; the newest entry comes first")

        rng = random.Random(args.seed + 1)
        deep = min(DEEP_PAGE, args.rows // PAGE_SIZE - 1)
        cases = [
            Case("first page", None, [0], args.requests),
            Case("random page < 50", None, [rng.randrange(50) for _ in range(997)], args.requests),
            Case("status FAILED, page 0", "FAILED", [0], args.requests),
            Case(f"deep page {deep:,}", None, [deep], args.deep_requests),
        ]
        raw = RawSql(db_path, company_id, measured.webhook_id)
        results: list[Result] = []
        try:
            for case in cases:
                progress(f"measuring {case.name}: {case.repetitions} requests, then the raw SQL")
                results.append(measure(case, endpoint, raw))
        finally:
            raw.close()
        pages = _console_results(stack.url, key, endpoint, seeded.newest[measured.webhook_id][0], args)
    return results, pages


def _console_results(
    base_url: str, key: str, endpoint: Endpoint, newest_queued_at: str, args: argparse.Namespace
) -> list[console_pages.PageResult]:
    first = endpoint.history(0, None)
    # A recent delivery's order id: the text search has to read the whole bounded window to find it.
    order_text = json.loads(first["history"][PAGE_SIZE // 2]["executionDetails"]["requestPayload"])["orderId"]
    deep = endpoint.history(min(1_000, args.rows // PAGE_SIZE - 1), None)
    execution_ids = console_pages.execution_ids_of(first) + console_pages.execution_ids_of(deep)
    cases = console_pages.cases(endpoint.webhook_id, newest_queued_at, order_text, execution_ids)
    client = console_pages.signed_in_client(base_url, key)
    try:
        return [console_pages.measure(client, case, args.console_requests) for case in cases]
    finally:
        client.close()


def main() -> int:
    args = _arguments()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-webhook-history-", ignore_cleanup_errors=True) as tmp:
            data_dir = Path(tmp) / "data"
            limits = {"SVC_RATE_LIMIT_PER_MINUTE": "1000000", "SVC_RATE_LIMIT_PER_DAY": "100000000"}
            progress("starting svc up")
            with running_stack(data_dir, limits) as stack:
                progress(f"svc is up at {stack.url}")
                results, pages = run(stack, data_dir, args)
                progress("stopping svc up")
        report(results)
        console_pages.report(pages)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
