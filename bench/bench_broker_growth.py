"""The embedded broker's fetch as its partitions grow: why ``svc up`` renews it (sinks/embedded_broker/).

One embedded broker (the binary ``svc up`` runs), one topic of one partition. In steps, single-record
batches (one ``send_and_wait`` each, as a stream of lone deliveries leaves) of ``--record-bytes`` are
produced into it; after each step, ``--fetches`` fetches of the last record, each by a fresh seek so every
one is a real fetch request, are timed, with the broker's CPU time (from /proc) over them. Each fetch is made
at every wait of ``--waits`` (ms): a fetch whose listing of the partition outlasts its wait comes back
empty, so ``got`` counts the fetches that returned the record within ``--fetch-timeout``. A second partition
of the same length is not created: another partition's batches were measured to cost nothing.

The baseline is the first step, same run: the CPU per fetch of a short partition. Figures are printed, never
asserted.

    .venv/bin/python bench/bench_broker_growth.py                        # about two minutes
    .venv/bin/python bench/bench_broker_growth.py --steps 500,2000,8000 --waits 2,20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, cpu_seconds, free_port, progress
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

TOPIC = "growth"


async def produce_to(producer: AIOKafkaProducer, count: int, payload: bytes) -> None:
    for _ in range(count):
        await producer.send_and_wait(TOPIC, payload, partition=0)


async def timed_fetches(
    bootstrap: str, pid: int, end: int, fetches: int, wait_ms: int, timeout_ms: int
) -> tuple[int, int, float, float]:
    """(fetches made, fetches that returned the record, mean wall ms per fetch, broker CPU ms per fetch).
    Three empty fetches in a row end the row: the partition is past the wait's cliff."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_wait_ms=wait_ms
    )
    await consumer.start()
    partition = TopicPartition(TOPIC, 0)
    consumer.assign([partition])
    made = got = empty_in_a_row = 0
    cpu_before, started = cpu_seconds(pid), time.perf_counter()
    try:
        while made < fetches and empty_in_a_row < 3:
            consumer.seek(partition, end - 1)
            answer = await consumer.getmany(partition, timeout_ms=timeout_ms, max_records=1)
            made += 1
            if any(answer.values()):
                got, empty_in_a_row = got + 1, 0
            else:
                empty_in_a_row += 1
    finally:
        await consumer.stop()
    wall = (time.perf_counter() - started) * 1000 / made
    cpu = (cpu_seconds(pid) - cpu_before) * 1000 / made
    return made, got, wall, cpu


async def run(args: argparse.Namespace, bootstrap: str, pid: int) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(TOPIC, 1, 1)])
    finally:
        await admin.close()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    payload = b"x" * args.record_bytes
    steps = [int(step) for step in args.steps.split(",")]
    waits = [int(wait) for wait in args.waits.split(",")]
    stored = 0
    baseline: float | None = None
    rows: list[str] = []
    try:
        for index, step in enumerate(steps):
            await produce_to(producer, step - stored, payload)
            stored = step
            if index == 0:  # warm-up: the first connections and fetches, untimed
                await timed_fetches(bootstrap, pid, stored, 20, waits[0], args.fetch_timeout)
            for wait in waits:
                made, got, wall, cpu = await timed_fetches(
                    bootstrap, pid, stored, args.fetches, wait, args.fetch_timeout
                )
                if baseline is None:
                    baseline = wall
                ratio = wall / baseline
                line = (
                    f"{stored:>8,} | {wait:>4} ms | {got:>3}/{made:<3} | {wall:>9.1f} ms | "
                    f"{cpu:>7.2f} ms | {ratio:>7.1f}x"
                )
                progress(line)
                rows.append(line)
    finally:
        await producer.stop()
    print()
    print(f"single-record batches of {args.record_bytes} bytes in one partition; up to {args.fetches}")
    print("fetches of the last record per row (three empty ones in a row end it); got = fetches that")
    print("returned it; CPU = the broker's per fetch (/proc: 10 ms ticks); vs first = wall time per fetch")
    print("against the first row's, same run")
    print(" batches |   wait |   got   | wall/fetch | CPU/fetch | vs first")
    print("---------------------------------------------------------------")
    for line in rows:
        print(line)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", default="500,1000,2000,3000,4000,6000,8000", help="partition lengths")
    parser.add_argument("--waits", default="2,20", help="fetch max waits (ms), comma-separated")
    parser.add_argument("--fetches", type=int, default=100, help="timed fetches per row")
    parser.add_argument(
        "--fetch-timeout", type=int, default=1000, help="ms a fetch may take before it counts as empty"
    )
    parser.add_argument("--record-bytes", type=int, default=300)
    args = parser.parse_args()
    # This process imports the checkout it runs from.
    sys.path.insert(0, str(REPO))
    from sinks.embedded_broker import process as broker

    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-broker-") as scratch:
        process = broker.start_tansu(port, Path(scratch) / "broker.log")
        bootstrap = f"127.0.0.1:{port}"
        try:
            broker.wait_reachable(bootstrap, 30, process)
            progress(
                f"embedded broker pid {process.pid} at {bootstrap}; load average {os.getloadavg()[0]:.2f}"
            )
            asyncio.run(run(args, bootstrap, process.pid))
            progress(f"load average at the end {os.getloadavg()[0]:.2f}")
        finally:
            process.kill()
            process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
