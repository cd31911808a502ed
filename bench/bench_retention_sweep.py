"""What the retention sweep costs the metadata database (SQLite, the default).

Three figures, each against a baseline measured in the same run:

1. **Write-lock hold per batch.** One sweep batch (256 deliveries past their retention deleted with their
   payloads and counts, as the leader's sweep runs it) against one group commit of 256 trigger deliveries
   (what the live path holds the lock for). Target: the ratio of the p99s at most 1.5.
2. **Cost follows what is deleted, not what is kept.** Deleting the same number of expired deliveries from a
   webhook whose history also holds few and many recent ones. Target: ratio at most 1.5.
3. **Space comes back.** The database file before the seed, after it, and after the sweep with the free pages
   given back (SQLite's incremental vacuum where the database has it).

Times are printed, never asserted. Run it alone on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _common import percentiles, progress

# A full group commit of the trigger's: the longest the live path holds the write lock.
GROUP = 256
BODY = json.dumps({"event": "order.created", "notes": "x" * 2000})


def _seed(db_file: Path, company_id: str, webhook_id: str, count: int, received: datetime, tag: str) -> None:
    """``count`` finished deliveries received at ``received`` (one attempt each), straight into the file."""
    connection = sqlite3.connect(db_file)
    at = received.replace(tzinfo=None).isoformat(sep=" ")
    payloads = [(f"{tag}{n:031x}", company_id, webhook_id, BODY, "{}", "{}") for n in range(count)]
    entries = [
        (
            f"{tag}{n:031x}",
            f"{tag}{n:031x}",
            webhook_id,
            company_id,
            f"{tag}{n:031x}",
            1,
            "SUCCESS",
            at,
            "orders",
            "POST",
            "JSONPATH",
        )
        for n in range(count)
    ]
    with connection:
        connection.executemany(
            "INSERT INTO webhook_payloads (id, company_id, webhook_id, request_payload, request_headers,"
            " request_query_params) VALUES (?, ?, ?, ?, ?, ?)",
            payloads,
        )
        connection.executemany(
            "INSERT INTO webhook_executions (id, execution_id, webhook_id, company_id, payload_id,"
            " attempt_number, status, queued_at, webhook_name, http_method, transform_type)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            entries,
        )
        connection.execute(
            "INSERT INTO webhook_execution_counts (webhook_id, status, entries) VALUES (?, 'SUCCESS', ?)"
            " ON CONFLICT (webhook_id, status) DO UPDATE SET entries = entries + excluded.entries",
            (webhook_id, count),
        )
    connection.close()


def _file_bytes(db_file: Path) -> int:
    """The database file alone (its WAL is cut back at checkpoints, SVC's journal_size_limit)."""
    return db_file.stat().st_size


async def _timed_units(run: Callable[[], object], times: int) -> list[float]:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        await run()  # type: ignore[misc]
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expired", type=int, default=20_000, help="expired deliveries per case")
    parser.add_argument("--kept", type=int, default=200_000, help="recent deliveries of the large case")
    args = parser.parse_args()

    import functools

    from sqlalchemy.orm import Session

    from sinks.db import space, tenancy
    from sinks.db.engine import make_engine, make_sessions
    from sinks.db.group_commit import GroupCommitter
    from sinks.db.migrate import upgrade
    from sinks.db.webhooks import definitions, deliveries, history_retention
    from streams.retention import BATCH

    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="svc-bench-retention-") as tmp:
        db_file = Path(tmp) / "svc.db"
        url = f"sqlite:///{db_file}"
        upgrade(url)
        engine = make_engine(url)
        sessions = make_sessions(engine)
        with sessions.begin() as session:
            company = tenancy.create_company(session, "Acme", "admin@acme.test")
            viewer = definitions.Viewer(company_id=company.company_id, user_id=company.user_id, is_admin=True)
            hooks = [definitions.create(session, viewer, {"name": f"orders-{n}"})[0].id for n in range(3)]
        small, large, live = hooks
        empty_bytes = _file_bytes(db_file)
        progress(f"seeding {args.expired:,} expired deliveries twice and {args.kept:,} recent ones")
        old = now - timedelta(days=40)
        _seed(db_file, company.company_id, small, args.expired, old, "a")
        _seed(db_file, company.company_id, small, 1_000, now, "b")
        _seed(db_file, company.company_id, large, args.expired, old, "c")
        _seed(db_file, company.company_id, large, args.kept, now, "d")
        seeded_bytes = _file_bytes(db_file)
        with sessions() as session:
            target = deliveries.load_target(session, live)
        assert target is not None
        committer = GroupCommitter(sessions, name="bench", max_batch=1)
        committer.start()

        def record_group(session: Session) -> None:
            for _ in range(GROUP):
                deliveries.record_delivery(
                    session,
                    deliveries.Delivery(
                        execution_id=uuid.uuid4().hex,
                        target=target,
                        http_method="POST",
                        source_ip=None,
                        headers_json="{}",
                        query_json="{}",
                        payload=BODY,
                        transform_type="JSONPATH",
                        variables_json="{}",
                        transform_error=None,
                        resource_type=None,
                        resource_id=None,
                        received_at=datetime.now(UTC),
                    ),
                )

        def sweep_unit(webhook_id: str) -> Callable[[], object]:
            unit = functools.partial(
                history_retention.delete_expired,
                company_id=company.company_id,
                webhook_id=webhook_id,
                cutoff=now - timedelta(days=30),
                limit=BATCH,
            )
            return lambda: committer.run(unit)

        async def measure() -> tuple[list[float], list[float], list[float]]:
            group = await _timed_units(lambda: committer.run(record_group), 60)
            small_case = await _timed_units(sweep_unit(small), rounds)
            large_case = await _timed_units(sweep_unit(large), rounds)
            return group, small_case, large_case

        rounds = -(-args.expired // BATCH)
        progress("measuring")
        group, small_case, large_case = asyncio.run(measure())
        swept_bytes = _file_bytes(db_file)
        while True:
            with sessions.begin() as session:
                if space.reclaim(session, space.RECLAIM_PAGES) < space.RECLAIM_PAGES:
                    break
        committer.stop()
        engine.dispose()
        reclaimed_bytes = _file_bytes(db_file)
        with sqlite3.connect(db_file) as connection:
            mode = connection.execute("PRAGMA auto_vacuum").fetchone()[0]
            left = connection.execute(
                "SELECT count(*) FROM webhook_executions WHERE queued_at < ?",
                ((now - timedelta(days=30)).replace(tzinfo=None).isoformat(sep=" "),),
            ).fetchone()[0]

    base, few, many = percentiles(group), percentiles(small_case), percentiles(large_case)
    print(f"group commit of {GROUP} deliveries   ms p50/p95/p99 {base}")
    print(f"sweep batches of {BATCH} deliveries, {rounds} per case")
    print(f"sweep batch, {1_000:,} kept          ms p50/p95/p99 {few}")
    print(f"sweep batch, {args.kept:,} kept      ms p50/p95/p99 {many}")
    print(f"expired left after the sweep: {left} (auto_vacuum mode {mode})")
    mib = 1024 * 1024
    print(
        f"database MiB: empty {empty_bytes / mib:.1f}, seeded {seeded_bytes / mib:.1f}, after the sweep "
        f"{swept_bytes / mib:.1f}, after reclaim {reclaimed_bytes / mib:.1f}"
    )
    print(f"RESULT lock_hold_ratio_p99={max(few.p99, many.p99) / base.p99:.2f} (target <= 1.5)")
    print(f"RESULT kept_size_ratio_p50={many.p50 / few.p50:.2f} (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
