"""The in-process turn on a table's commits (sinks/iceberg/commit_turns.py): a compaction holding it keeps
the writer's commits of that table waiting and no other table's; a compaction that cannot get it in time
holds nothing."""

import threading
import uuid
from types import SimpleNamespace
from typing import Any

import pytest

from sinks.iceberg.commit_turns import compaction_turn, writer_turn

pytestmark = pytest.mark.unit


def handle(table_uuid: uuid.UUID) -> Any:
    # Only the identity of the table matters: every handle of one table shares its turn.
    return SimpleNamespace(metadata=SimpleNamespace(table_uuid=table_uuid))


def test_the_writer_waits_for_a_compaction_holding_the_turn_of_its_table_only() -> None:
    table, other = uuid.uuid4(), uuid.uuid4()
    order: list[str] = []
    started = threading.Event()

    def write() -> None:
        started.set()
        with writer_turn(handle(table)):
            order.append("append")

    with compaction_turn(handle(table), wait_seconds=1.0) as held:
        assert held
        with writer_turn(handle(other)):
            order.append("other table")
        writer = threading.Thread(target=write)
        writer.start()
        started.wait()
        writer.join(timeout=0.2)
        assert writer.is_alive()  # waiting for the turn
        order.append("compaction")
    writer.join()
    assert order == ["other table", "compaction", "append"]


def test_a_compaction_that_does_not_get_the_turn_in_time_holds_nothing() -> None:
    table = uuid.uuid4()
    with writer_turn(handle(table)), compaction_turn(handle(table), wait_seconds=0.05) as held:
        assert not held
    with compaction_turn(handle(table), wait_seconds=0.05) as held:
        assert held
