"""W3C traceparent parsing and continuation (core/tracing.py)."""

from __future__ import annotations

import random

import pytest

from core import tracing
from core.tracing import TraceContext

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


def seeded(seed: int) -> random.Random:
    return random.Random(seed)  # noqa: S311 (reproducible ids in a test, not secrets)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (f"00-{TRACE}-{SPAN}-01", TraceContext(TRACE, SPAN, "01")),
        (f"00-{TRACE}-{SPAN}-00", TraceContext(TRACE, SPAN, "00")),
        (f"  00-{TRACE}-{SPAN}-01  ", TraceContext(TRACE, SPAN, "01")),
        # Flags other than "sampled" are not defined for version 00: not passed on.
        (f"00-{TRACE}-{SPAN}-ff", TraceContext(TRACE, SPAN, "01")),
        (f"00-{TRACE}-{SPAN}-02", TraceContext(TRACE, SPAN, "00")),
        # A later version is read as 00, with whatever it appends ignored.
        (f"01-{TRACE}-{SPAN}-01-extra", TraceContext(TRACE, SPAN, "01")),
        (f"cc-{TRACE}-{SPAN}-01", TraceContext(TRACE, SPAN, "01")),
    ],
)
def test_valid_traceparents_are_read(value: str, expected: TraceContext) -> None:
    assert tracing.parse(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "garbage",
        f"ff-{TRACE}-{SPAN}-01",  # version ff is invalid
        f"00-{TRACE}-{SPAN}-01-extra",  # version 00 has exactly four fields
        f"00-{'0' * 32}-{SPAN}-01",  # all-zero trace id
        f"00-{TRACE}-{'0' * 16}-01",  # all-zero span id
        f"00-{TRACE.upper()}-{SPAN}-01",  # upper-case hex
        f"00-{TRACE[:-1]}-{SPAN}-01",
        f"00-{TRACE}-{SPAN}0-01",
        f"00_{TRACE}_{SPAN}_01",
        f"0-{TRACE}-{SPAN}-01",
        f"00-{TRACE}-{SPAN}-01" + "-x" * 300,  # over the size bound
    ],
)
def test_invalid_traceparents_are_ignored(value: str | None) -> None:
    assert tracing.parse(value) is None


def test_a_request_continues_its_callers_trace_as_a_new_span() -> None:
    span, parent = tracing.incoming(f"00-{TRACE}-{SPAN}-00", seeded(1))
    assert (span.trace_id, span.flags, parent) == (TRACE, "00", SPAN)
    assert span.span_id != SPAN and len(span.span_id) == 16
    assert tracing.parse(span.traceparent) == span


def test_a_request_without_a_valid_traceparent_starts_a_sampled_trace() -> None:
    first, parent = tracing.incoming("nonsense", seeded(1))
    second, _ = tracing.incoming(None, seeded(2))
    assert parent is None
    assert first.trace_id != second.trace_id
    assert first.flags == "01" and len(first.trace_id) == 32
    assert tracing.parse(first.traceparent) == first


def test_children_share_the_trace_and_differ_in_span() -> None:
    root = TraceContext(TRACE, SPAN)
    children = {root.child(seeded(seed)).span_id for seed in range(20)}
    assert len(children) == 20 and SPAN not in children
    assert {root.child().trace_id, root.child().flags} == {TRACE, "01"}


class ZeroFirst(random.Random):
    """Returns 0 once, then random bits: an all-zero id is drawn again."""

    def __init__(self) -> None:
        super().__init__(3)
        self.zero_given = False

    def getrandbits(self, k: int) -> int:
        if not self.zero_given:
            self.zero_given = True
            return 0
        return super().getrandbits(k)


def test_an_all_zero_id_is_never_produced() -> None:
    assert tracing.new_span_id(ZeroFirst()) != "0" * 16
    assert tracing.new_trace_id(ZeroFirst()) != "0" * 32


def test_the_history_shows_the_stored_trace_id() -> None:
    assert tracing.trace_id_of(f"00-{TRACE}-{SPAN}-01") == TRACE
    assert tracing.trace_id_of(None) is None
    assert tracing.trace_id_of("bad") is None
