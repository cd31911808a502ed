"""Keyless records share one partition per time slot; keyed records keep Kafka's murmur2 placement."""

from __future__ import annotations

from itertools import pairwise

from aiokafka.partitioner import DefaultPartitioner

from sinks.embedded_broker.client import StickyPartitioner

PARTITIONS = [0, 1, 2, 3]
SLOT = 10_000_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000_000_000

    def __call__(self) -> int:
        return self.now


def test_keyless_records_sent_together_share_a_partition() -> None:
    clock = Clock()
    partitioner = StickyPartitioner(slot_ns=SLOT, clock_ns=clock)
    first = partitioner(None, PARTITIONS, PARTITIONS)
    clock.now += SLOT * 4 // 10
    assert partitioner(None, PARTITIONS, [3, 1, 0, 2]) == first  # the order of `available` does not matter


def test_successive_slots_take_the_partitions_in_turn() -> None:
    clock = Clock()
    partitioner = StickyPartitioner(slot_ns=SLOT, clock_ns=clock)
    chosen = []
    for _ in range(8):
        chosen.append(partitioner(None, PARTITIONS, PARTITIONS))
        clock.now += SLOT
    assert sorted(chosen) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert all(a != b for a, b in pairwise(chosen))


def test_only_available_partitions_are_chosen_while_some_are_not() -> None:
    clock = Clock()
    partitioner = StickyPartitioner(slot_ns=SLOT, clock_ns=clock)
    for _ in range(8):
        assert partitioner(None, PARTITIONS, [1, 3]) in (1, 3)
        clock.now += SLOT
    assert partitioner(None, PARTITIONS, []) in PARTITIONS


def test_keyed_records_go_where_kafka_s_default_partitioner_puts_them() -> None:
    partitioner = StickyPartitioner()
    default = DefaultPartitioner()
    for key in (b"table-1", b"table-2", b"a-run-id", b""):
        assert partitioner(key, PARTITIONS, PARTITIONS) == default(key, PARTITIONS, PARTITIONS)
