"""pyiceberg's pool per calling thread (sinks/iceberg/work_pools.py): bulk work inside ``separate_pool`` goes
to its kind's pool, everything else (the table writer's commits) to pyiceberg's own."""

from __future__ import annotations

import threading
from concurrent.futures import Executor

from pyiceberg.utils.concurrent import ExecutorFactory

from sinks.iceberg.work_pools import Kind, in_pool, pool_in_use, separate_pool


def test_the_block_uses_its_kinds_pool_and_restores_the_shared_one() -> None:
    shared = pool_in_use()
    with separate_pool(Kind.MAINTENANCE):
        maintenance = pool_in_use()
        assert maintenance is not shared
        with separate_pool(Kind.LOADS):
            assert pool_in_use() not in (shared, maintenance)
        assert pool_in_use() is maintenance
    assert pool_in_use() is shared
    # pyiceberg's own lookup is what the block changes.
    assert ExecutorFactory.get_or_create() is shared


def test_one_kind_is_one_pool_across_threads() -> None:
    seen: list[Executor] = []

    def note() -> None:
        with separate_pool(Kind.MUTATIONS):
            seen.append(pool_in_use())

    threads = [threading.Thread(target=note) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen[0] is seen[1]


def test_another_thread_keeps_the_shared_pool_during_a_block() -> None:
    shared = pool_in_use()
    inside = threading.Event()
    leave = threading.Event()
    seen: list[Executor] = []

    def hold() -> None:
        with separate_pool(Kind.MAINTENANCE):
            seen.append(pool_in_use())
            inside.set()
            leave.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(10)
        assert pool_in_use() is shared
        assert seen[0] is not shared
    finally:
        leave.set()
        holder.join()


def test_an_error_in_the_block_restores_the_pool() -> None:
    shared = pool_in_use()
    try:
        with separate_pool(Kind.LOADS):
            raise ValueError("boom")
    except ValueError:
        pass
    assert pool_in_use() is shared


def test_a_decorated_function_runs_in_its_kinds_pool() -> None:
    shared = pool_in_use()

    @in_pool(Kind.LOADS)
    def inside() -> Executor:
        return pool_in_use()

    with separate_pool(Kind.LOADS):
        loads = pool_in_use()
    assert inside() is loads is not shared
    assert inside.__name__ == "inside"
    assert pool_in_use() is shared
