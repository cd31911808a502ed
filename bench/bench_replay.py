"""Webhook replay (issue 24): replay N FAILED executions and measure live traffic while it runs.

The real stack runs as ``svc up``. A webhook's handler fails (503) for N triggers (no retries), so N
executions are FAILED; the handler is then fixed and the N are replayed by executionIds (10,000 a call).
Live traffic is another webhook of the same company, triggered at a steady rate: its 202 latency p99 is
measured for the same length of time without and then with the replay running, in the same run, and the
ratio printed (target: within 1.5x). Replay throughput = N / (time from the first replay call to the last
replayed execution's SUCCESS). Times are printed, never asserted.

    .venv/bin/python bench/bench_replay.py --count 2000 --rate 200
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from _common import free_port, percentiles, progress, running_stack
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

BASE = "/svc_poweruser/custom-webhooks"
TRIGGER = "/clients/custom-webhooks"
PER_CALL = 10_000
NO_RETRIES = {"timeoutSeconds": 10, "maxRetries": 0, "retryDelaySeconds": 0}


class Handler:
    """The handler, in this process: fails while ``failing``; counts calls."""

    def __init__(self) -> None:
        self.failing = True
        self.calls = 0
        self.port = free_port()

    async def run(self, request: Request) -> JSONResponse:
        await request.body()
        self.calls += 1
        if self.failing:
            return JSONResponse({"error": "down"}, status_code=503)
        return JSONResponse({"ok": True})

    def start(self) -> None:
        app = Starlette(routes=[Route("/run", self.run, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_config=None, access_log=False)
        threading.Thread(target=uvicorn.Server(config).run, daemon=True).start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.post(f"http://127.0.0.1:{self.port}/run", json={}, timeout=1)
                self.calls = 0
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("handler did not start")


def _call(client: httpx.Client, key: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(f"{BASE}/{action}", json=body, headers={"Authorization": key}, timeout=600)
    if answer.status_code != 200:
        raise RuntimeError(f"{action} answered {answer.status_code}: {answer.text[:300]}")
    result: dict[str, Any] = answer.json()
    return result


def _webhook(client: httpx.Client, key: str, tool_id: str, name: str) -> tuple[str, str]:
    created = _call(client, key, "create", {"webhookConfig": {"name": name}})
    config = {
        "name": name,
        "payloadTransformConfig": {"transformType": "JSONPATH", "jsonPathMappings": {"orderId": "$.orderId"}},
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": tool_id,
            "variables": {"order": "@@{orderId}"},
        },
        "executionSettings": NO_RETRIES,
    }
    _call(client, key, "update", {"webhookId": created["webhook"]["id"], "webhookConfig": config})
    return str(created["webhook"]["id"]), str(created["apiKey"])


def _count(client: httpx.Client, key: str, webhook_id: str, status: str) -> int:
    body = {"webhookId": webhook_id, "status": status, "size": 1}
    return int(_call(client, key, "get-execution-history", body)["totalElements"])


def _wait_count(
    client: httpx.Client, key: str, webhook_id: str, status: str, count: int, limit: float
) -> float:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if _count(client, key, webhook_id, status) >= count:
            return time.monotonic()
        time.sleep(0.5)
    raise RuntimeError(f"{status} did not reach {count} within {limit:.0f} s")


async def _trigger_many(url: str, webhook_id: str, key: str, count: int, concurrency: int) -> list[str]:
    ids: list[str] = []
    queue = iter(range(count))
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:

        async def sender() -> None:
            for index in queue:
                answer = await client.post(
                    TRIGGER,
                    params={"resourceId": webhook_id},
                    headers={"Authorization": key},
                    json={"orderId": f"ord_{index:08d}", "total": index},
                )
                if answer.status_code != 202:
                    raise RuntimeError(f"trigger answered {answer.status_code}: {answer.text[:200]}")
                ids.append(answer.json()["executionId"])

        await asyncio.gather(*(sender() for _ in range(concurrency)))
    return ids


async def _live(url: str, webhook_id: str, key: str, rate: float, seconds: float) -> tuple[list[float], int]:
    """Open loop: a trigger every 1/rate s whatever the answers; (latencies in ms, non-202 answers)."""
    latencies: list[float] = []
    refused = 0
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:

        async def one(index: int) -> None:
            nonlocal refused
            start = time.perf_counter()
            answer = await client.post(
                TRIGGER,
                params={"resourceId": webhook_id},
                headers={"Authorization": key},
                json={"orderId": f"live_{index:08d}"},
            )
            latencies.append((time.perf_counter() - start) * 1000)
            refused += answer.status_code != 202

        tasks = []
        began = time.perf_counter()
        for index in range(int(rate * seconds)):
            await asyncio.sleep(max(0.0, began + index / rate - time.perf_counter()))
            tasks.append(asyncio.create_task(one(index)))
        await asyncio.gather(*tasks)
    return latencies, refused


def _replay_all(url: str, key: str, webhook_id: str, ids: list[str], done: dict[str, float]) -> None:
    with httpx.Client(base_url=url) as client:
        done["start"] = time.monotonic()
        for first in range(0, len(ids), PER_CALL):
            chunk = ids[first : first + PER_CALL]
            answer = _call(
                client, key, "replay", {"webhookId": webhook_id, "executionIds": chunk, "limit": PER_CALL}
            )
            if answer["replayed"] != len(chunk):
                raise RuntimeError(f"replayed {answer['replayed']} of {len(chunk)}")
        done["recorded"] = time.monotonic()


def run(args: argparse.Namespace, data_dir: Path) -> None:
    env = {
        "SVC_RATE_LIMIT_PER_MINUTE": "1000000",
        "SVC_RATE_LIMIT_PER_DAY": "100000000",
        "SVC_REPLAY_RATE_PER_SECOND": str(args.rate),
    }
    handler = Handler()
    handler.start()
    with running_stack(data_dir, env) as stack, httpx.Client(base_url=stack.url) as client:
        company = stack.admin(
            "create-company", "--name", "Replay Shop", "--admin-email", "admin@replay.example"
        )
        key = company["poweruserKey"]
        tool = stack.admin(
            "create-resource", "--company-id", company["companyId"], "--type", "TOOL",
            "--name", "recorder", "--endpoint", f"http://127.0.0.1:{handler.port}/run",
        )  # fmt: skip
        failing_id, failing_key = _webhook(client, key, tool["resourceId"], "orders")
        live_id, live_key = _webhook(client, key, tool["resourceId"], "live")
        progress(f"triggering {args.count:,} deliveries whose handler fails")
        ids = asyncio.run(_trigger_many(stack.url, failing_id, failing_key, args.count, args.concurrency))
        _wait_count(client, key, failing_id, "FAILED", args.count, limit=args.count / 20 + 120)
        handler.failing = False
        progress(f"{args.count:,} FAILED, handler fixed; live alone: {args.live_rate}/s, {args.seconds} s")
        alone, alone_refused = asyncio.run(_live(stack.url, live_id, live_key, args.live_rate, args.seconds))
        done: dict[str, float] = {}
        replayer = threading.Thread(target=_replay_all, args=(stack.url, key, failing_id, ids, done))
        replayer.start()
        progress(f"replaying {args.count:,} at {args.rate}/s; live traffic again for {args.seconds} s")
        during, during_refused = asyncio.run(
            _live(stack.url, live_id, live_key, args.live_rate, args.seconds)
        )
        replay_busy = _count(client, key, failing_id, "SUCCESS") < args.count
        replayer.join()
        finished = _wait_count(
            client, key, failing_id, "SUCCESS", args.count, limit=args.count / args.rate * 3 + 300
        )
    base, load = percentiles(alone), percentiles(during)
    elapsed = finished - done["start"]
    print()
    print(f"replayed executions          {args.count:,} (SVC_REPLAY_RATE_PER_SECOND={args.rate})")
    print(f"replay calls recorded all in {done['recorded'] - done['start']:.2f} s")
    print(
        f"replay throughput            {args.count / elapsed:,.1f} executions/s (first call to last SUCCESS)"
    )
    print(f"live trigger p50/p95/p99 ms  alone {base}  during replay {load}")
    print(f"live p99 ratio               {load.p99 / base.p99:.2f}x (target <= 1.5x)")
    print(f"live non-202 answers         alone {alone_refused}, during {during_refused}")
    print(f"replay still running at the end of the live window: {replay_busy}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=100_000, help="FAILED executions to replay")
    parser.add_argument("--rate", type=float, default=50.0, help="SVC_REPLAY_RATE_PER_SECOND")
    parser.add_argument("--live-rate", type=float, default=100.0, help="live triggers per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each live window")
    parser.add_argument("--concurrency", type=int, default=32, help="senders of the failing triggers")
    args = parser.parse_args()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-replay-", ignore_cleanup_errors=True) as tmp:
            run(args, Path(tmp) / "data")
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
