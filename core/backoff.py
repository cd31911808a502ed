"""The one capped doubling backoff: ``first``, twice that, four times, ... and never more than ``longest``.

Every pause or delay that backs off (a crashed child's restart, a scheduled run's retry, a wait for the
metadata database or SQLite's write lock) is this with its own two numbers; jitter, where there is any, is
the caller's, applied to what this returns.
"""

from __future__ import annotations

# Past this many doublings every caller's cap is long reached; bounding the exponent keeps a long run of
# failures from computing a huge float.
_MOST_DOUBLINGS = 64


def capped_doubling(first: float, longest: float, n: int) -> float:
    """The pause before try ``n + 1`` after ``n`` failures in a row (``n`` from 1; less counts as 1)."""
    return min(longest, first * 2.0 ** min(max(n, 1) - 1, _MOST_DOUBLINGS))
