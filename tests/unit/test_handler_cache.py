"""The worker's cache of handler registrations: deliveries that miss together share one DB read."""

import asyncio
import time
from collections.abc import Callable

import pytest

from core.expiring import Expiring
from streams.runtime import HandlerRuntime

pytestmark = pytest.mark.unit


def _runtime(read: Callable[[str, str], None]) -> HandlerRuntime:
    runtime = HandlerRuntime.__new__(HandlerRuntime)  # no DB, broker or worker: only the cache is used
    runtime._handlers = Expiring(1.0, 100)
    runtime._reading = {}
    runtime.handler = read  # type: ignore[method-assign,assignment]
    return runtime


def test_misses_in_flight_together_share_one_read_and_the_answer_is_cached() -> None:
    reads: list[tuple[str, str]] = []

    def read(company_id: str, resource_id: str) -> None:
        reads.append((company_id, resource_id))
        time.sleep(0.05)

    runtime = _runtime(read)

    async def scenario() -> None:
        answers = await asyncio.gather(*(runtime.cached_handler("c", "r") for _ in range(20)))
        assert answers == [None] * 20
        assert await runtime.cached_handler("c", "r") is None
        await runtime.cached_handler("c", "other")

    asyncio.run(scenario())
    assert reads == [("c", "r"), ("c", "other")]


def test_a_failed_read_reaches_every_waiter_and_is_not_cached() -> None:
    attempts = 0

    def read(company_id: str, resource_id: str) -> None:
        nonlocal attempts
        attempts += 1
        time.sleep(0.02)
        if attempts == 1:
            raise RuntimeError("database is locked")

    runtime = _runtime(read)

    async def scenario() -> None:
        outcomes = await asyncio.gather(
            *(runtime.cached_handler("c", "r") for _ in range(5)), return_exceptions=True
        )
        assert all(isinstance(outcome, RuntimeError) for outcome in outcomes)
        assert await runtime.cached_handler("c", "r") is None

    asyncio.run(scenario())
    assert attempts == 2
