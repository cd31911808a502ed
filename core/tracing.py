"""W3C Trace Context (``traceparent``) for a webhook delivery: parsed, continued and formatted.

A delivery's trace is the caller's when it sends a valid ``traceparent`` (version ``00``, or a later version
read as ``00`` as the recommendation says), else a new one. The ingress is one span of it; the queue wait,
the transform and every handler attempt are spans whose parent is the ingress span. The ids are plain
random numbers: nothing here needs an OpenTelemetry SDK, which is loaded only when spans are exported
(``sinks/telemetry.py``).

Pure: text in, text out; the random source is the caller's.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

HEADER = "traceparent"
# version-traceid-parentid-flags, lower-case hex; a later version may append fields after a dash.
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
_INVALID_VERSION = "ff"
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
SAMPLED = "01"
MAX_HEADER_CHARS = 512


@dataclass(frozen=True)
class TraceContext:
    """One span's place in a trace: ``span_id`` is the span itself (the parent of what it calls)."""

    trace_id: str
    span_id: str
    flags: str = SAMPLED

    @property
    def traceparent(self) -> str:
        return f"00-{self.trace_id}-{self.span_id}-{self.flags}"

    def child(self, rng: random.Random | None = None) -> TraceContext:
        """A new span of the same trace, called by this one."""
        return TraceContext(self.trace_id, new_span_id(rng), self.flags)


def new_span_id(rng: random.Random | None = None) -> str:
    value = 0
    while value == 0:  # all-zero ids are invalid
        value = (rng or random).getrandbits(64)
    return f"{value:016x}"


def new_trace_id(rng: random.Random | None = None) -> str:
    value = 0
    while value == 0:
        value = (rng or random).getrandbits(128)
    return f"{value:032x}"


def parse(value: str | None) -> TraceContext | None:
    """The caller's context from a ``traceparent`` header, or None when it is absent or invalid (a trace
    then starts here, as the recommendation says for a header that cannot be parsed)."""
    if not value or len(value) > MAX_HEADER_CHARS:
        return None
    found = _TRACEPARENT.fullmatch(value.strip())
    if found is None:
        return None
    version, trace_id, span_id, flags, rest = found.groups()
    if version == _INVALID_VERSION or (version == "00" and rest is not None):
        return None
    if trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN:
        return None
    # Only the sampled bit is defined for version 00; other bits are not passed on.
    return TraceContext(trace_id, span_id, f"{int(flags, 16) & 1:02x}")


def incoming(value: str | None, rng: random.Random | None = None) -> tuple[TraceContext, str | None]:
    """The ingress span for a request carrying ``value``: a child of the caller's span, or the root of a new
    sampled trace. Also returns the caller's span id (the ingress span's parent), None for a new trace."""
    caller = parse(value)
    if caller is None:
        return TraceContext(new_trace_id(rng), new_span_id(rng)), None
    return caller.child(rng), caller.span_id


def trace_id_of(traceparent: str | None) -> str | None:
    """The trace id a stored ``traceparent`` names (what the execution history shows)."""
    context = parse(traceparent)
    return None if context is None else context.trace_id
