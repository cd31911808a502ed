"""A paced topic: a lone send goes at once; sends during the pace wait together for one release."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from schemas.settings import Settings
from sinks.embedded_broker.client import BatchPacer
from sinks.kafka import Publisher

PACE = 0.05


class Ticks:
    """Counts event-loop iterations, so a test can tell which sends resumed in the same one."""

    def __init__(self) -> None:
        self.count = 0

    async def run(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0)


@pytest.fixture
async def ticks() -> AsyncIterator[Ticks]:
    counter = Ticks()
    task = asyncio.create_task(counter.run())
    yield counter
    task.cancel()


async def released_at(pacer: BatchPacer, ticks: Ticks) -> int:
    await pacer.wait_turn()
    return ticks.count


async def test_a_send_to_a_quiet_topic_goes_at_once() -> None:
    pacer = BatchPacer(PACE)
    first = asyncio.create_task(pacer.wait_turn())
    await asyncio.sleep(0)
    assert first.done()


async def test_sends_during_the_pace_wait_and_leave_together(ticks: Ticks) -> None:
    pacer = BatchPacer(PACE)
    await pacer.wait_turn()
    waiting = [asyncio.create_task(released_at(pacer, ticks)) for _ in range(5)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert not any(task.done() for task in waiting)
    iterations = await asyncio.gather(*waiting)
    assert len(set(iterations)) == 1  # one release, one loop iteration: the producer builds one batch


async def test_a_send_right_after_a_release_waits_for_the_next_one() -> None:
    pacer = BatchPacer(PACE)
    await pacer.wait_turn()
    await pacer.wait_turn()  # the first release
    follower = asyncio.create_task(pacer.wait_turn())
    await asyncio.sleep(0)
    assert not follower.done()
    await follower


async def test_the_topic_is_quiet_again_a_pace_after_its_last_release() -> None:
    pacer = BatchPacer(PACE)
    await pacer.wait_turn()
    await asyncio.sleep(PACE * 1.5)
    lone = asyncio.create_task(pacer.wait_turn())
    await asyncio.sleep(0)
    assert lone.done()


async def test_a_cancelled_sender_does_not_cancel_the_others() -> None:
    pacer = BatchPacer(PACE)
    await pacer.wait_turn()
    cancelled = asyncio.create_task(pacer.wait_turn())
    other = asyncio.create_task(pacer.wait_turn())
    await asyncio.sleep(0)
    cancelled.cancel()
    await other
    assert cancelled.cancelled()


async def test_no_pace_never_waits() -> None:
    pacer = BatchPacer(0)
    for _ in range(3):
        task = asyncio.create_task(pacer.wait_turn())
        await asyncio.sleep(0)
        assert task.done()


def test_the_publisher_paces_the_delivery_topic_only() -> None:
    settings = Settings(kafka_bootstrap="127.0.0.1:9", topic_prefix="t.")
    assert Publisher(settings).paced_topics == {"webhook.deliveries": 0.005}


def test_a_gate_left_by_a_stopped_loop_does_not_hold_the_next_loop() -> None:
    pacer = BatchPacer(PACE)

    async def leave_a_pending_gate() -> None:
        await pacer.wait_turn()
        waiting = asyncio.create_task(pacer.wait_turn())
        await asyncio.sleep(0)
        waiting.cancel()  # the loop stops before the gate's release

    async def send_on_a_new_loop() -> None:
        await asyncio.wait_for(pacer.wait_turn(), timeout=5)

    asyncio.run(leave_a_pending_gate())
    asyncio.run(send_on_a_new_loop())  # its own gate: no future of the old loop is awaited
