"""Trigger deduplication (issue 24): what an Idempotency-Key adds to the trigger's latency.

The real stack runs as ``svc up``. One webhook is triggered open-loop at a steady rate, alternately without
a key and with a unique ``Idempotency-Key`` per request (ABBA order, so a drift over the run falls on both
sides alike), for the same total time each, in the same run. A key costs the trigger one read by primary key
(the lookup) and one more statement in the group commit that records the delivery (the claim). Then the
same keys are sent again, which the lookup answers as duplicates. Latency counts from each request's
scheduled send time (no coordinated omission); a request whose connection broke is counted as status 0.
Times are printed, never asserted; the target is at most 1 ms added to p50.

    .venv/bin/python bench/bench_dedup.py --rate 200 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from _common import percentiles, progress, running_stack

BASE = "/svc_poweruser/custom-webhooks"
TRIGGER = "/clients/custom-webhooks"
WARMUP_SECONDS = 2.0


def _webhook(client: httpx.Client, key: str) -> tuple[str, str]:
    """A webhook with a JSONPath transform and no handler: the worker takes each delivery off the queue and
    records it FAILED (``No handler configured``), so the database sees the whole delivery path's writes."""
    created = client.post(
        f"{BASE}/create", json={"webhookConfig": {"name": "dedup"}}, headers={"Authorization": key}
    )
    created.raise_for_status()
    webhook_id = created.json()["webhook"]["id"]
    config = {
        "name": "dedup",
        "payloadTransformConfig": {"transformType": "JSONPATH", "jsonPathMappings": {"orderId": "$.orderId"}},
        "executionSettings": {"timeoutSeconds": 10, "maxRetries": 0, "retryDelaySeconds": 0},
    }
    updated = client.post(
        f"{BASE}/update",
        json={"webhookId": webhook_id, "webhookConfig": config},
        headers={"Authorization": key},
    )
    updated.raise_for_status()
    return str(webhook_id), str(created.json()["apiKey"])


async def _phase(
    client: httpx.AsyncClient, webhook_id: str, key: str, rate: float, seconds: float, keys: list[str] | None
) -> tuple[list[float], Counter[int]]:
    """Open loop at ``rate`` for ``seconds``: the latencies (ms) and the answers' status codes. ``keys``: the
    Idempotency-Key of each request in turn (None: no key)."""
    latencies: list[float] = []
    statuses: Counter[int] = Counter()

    async def one(index: int, scheduled: float) -> None:
        headers = {"Authorization": key}
        if keys is not None:
            headers["Idempotency-Key"] = keys[index]
        try:
            answer = await client.post(
                TRIGGER, params={"resourceId": webhook_id}, headers=headers, json={"orderId": f"o{index}"}
            )
        except httpx.TransportError:  # counted, not timed: a dropped connection says nothing about dedup
            statuses[0] += 1
            return
        latencies.append((time.perf_counter() - scheduled) * 1000)
        statuses[answer.status_code] += 1

    tasks = []
    began = time.perf_counter()
    for index in range(int(rate * seconds)):
        scheduled = began + index / rate
        await asyncio.sleep(max(0.0, scheduled - time.perf_counter()))
        tasks.append(asyncio.create_task(one(index, scheduled)))
    await asyncio.gather(*tasks)
    return latencies, statuses


async def _measure(url: str, webhook_id: str, key: str, rate: float, seconds: float) -> dict[str, Any]:
    half = seconds / 2
    count = int(rate * half)
    plain: list[float] = []
    keyed: list[float] = []
    sent_keys: list[str] = []
    answers: dict[str, Counter[int]] = {"plain": Counter(), "keyed": Counter(), "duplicate": Counter()}
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        progress(f"warm-up {WARMUP_SECONDS:.0f} s")
        await _phase(client, webhook_id, key, rate, WARMUP_SECONDS, None)
        for kind in ("plain", "keyed", "keyed", "plain"):
            keys = [uuid.uuid4().hex for _ in range(count)] if kind == "keyed" else None
            progress(f"{kind}: {count} triggers at {rate:.0f}/s")
            latencies, statuses = await _phase(client, webhook_id, key, rate, half, keys)
            (keyed if kind == "keyed" else plain).extend(latencies)
            answers[kind].update(statuses)
            sent_keys += keys or []
        progress(f"duplicates: {count} triggers repeating keys already sent")
        duplicates, statuses = await _phase(client, webhook_id, key, rate, half, sent_keys[:count])
        answers["duplicate"].update(statuses)
    return {"plain": plain, "keyed": keyed, "duplicate": duplicates, "answers": answers}


def run(args: argparse.Namespace, data_dir: Path) -> None:
    env = {"SVC_RATE_LIMIT_PER_MINUTE": "1000000", "SVC_RATE_LIMIT_PER_DAY": "100000000"}
    with running_stack(data_dir, env) as stack, httpx.Client(base_url=stack.url, timeout=60) as client:
        company = stack.admin(
            "create-company", "--name", "Dedup Shop", "--admin-email", "admin@dedup.example"
        )
        webhook_id, key = _webhook(client, company["poweruserKey"])
        result = asyncio.run(_measure(stack.url, webhook_id, key, args.rate, args.seconds))
    plain, keyed, duplicate = (percentiles(result[kind]) for kind in ("plain", "keyed", "duplicate"))
    print()
    print(f"rate {args.rate:.0f}/s, {args.seconds:.0f} s of each kind (ABBA halves), database: SQLite")
    print(f"without a key        p50/p95/p99 ms  {plain}   ({len(result['plain'])} triggers)")
    print(f"unique Idempotency   p50/p95/p99 ms  {keyed}   ({len(result['keyed'])} triggers)")
    print(f"repeated key (dup)   p50/p95/p99 ms  {duplicate}   ({len(result['duplicate'])} triggers)")
    print(f"dedup overhead p50   {keyed.p50 - plain.p50:+.2f} ms (target <= 1 ms)")
    print(f"answers              {dict((kind, dict(counts)) for kind, counts in result['answers'].items())}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=float, default=200.0, help="triggers per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time of each kind")
    args = parser.parse_args()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-dedup-", ignore_cleanup_errors=True) as tmp:
            run(args, Path(tmp) / "data")
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
