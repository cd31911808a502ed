"""The bounded memo (core/bounded_memo.py): least recently used first out, never more entries or bytes than
its bounds, and a value over the per-entry bound not kept at all."""

from __future__ import annotations

import pytest

from core.bounded_memo import BoundedMemo, MemoBounds

pytestmark = pytest.mark.unit


def memo(entries: int = 3, total_bytes: int = 100, entry_bytes: int = 50) -> BoundedMemo[str, str]:
    return BoundedMemo(MemoBounds(entries=entries, total_bytes=total_bytes, entry_bytes=entry_bytes))


def test_a_kept_value_is_found_and_an_unknown_key_is_not() -> None:
    kept = memo()
    assert kept.put("a", "A", 10)
    assert kept.get("a") == "A" and kept.get("b") is None
    assert len(kept) == 1 and kept.total_bytes == 10


def test_the_least_recently_used_goes_first_when_entries_run_out() -> None:
    kept = memo(entries=2)
    kept.put("a", "A", 1)
    kept.put("b", "B", 1)
    assert kept.get("a") == "A"  # now b is the least recently used
    kept.put("c", "C", 1)
    assert kept.get("b") is None and kept.get("a") == "A" and kept.get("c") == "C"
    assert len(kept) == 2


def test_values_go_until_the_bytes_fit() -> None:
    kept = memo(entries=10, total_bytes=100, entry_bytes=60)
    kept.put("a", "A", 40)
    kept.put("b", "B", 40)
    kept.put("c", "C", 60)  # 140 bytes: a goes, and 100 fit
    assert kept.get("a") is None and kept.get("b") == "B" and kept.get("c") == "C"
    assert kept.total_bytes == 100
    kept.put("d", "D", 50)  # b (the least recently used now) is not enough: c goes too
    assert kept.get("b") is None and kept.get("c") is None and kept.get("d") == "D"
    assert kept.total_bytes == 50


def test_a_value_over_the_entry_bound_is_not_kept_and_drops_nothing() -> None:
    kept = memo(entry_bytes=50)
    kept.put("a", "A", 50)
    assert not kept.put("b", "B", 51)
    assert kept.get("b") is None and kept.get("a") == "A" and kept.total_bytes == 50


def test_a_key_kept_again_counts_once() -> None:
    kept = memo()
    kept.put("a", "A", 30)
    kept.put("a", "A2", 20)
    assert kept.get("a") == "A2" and len(kept) == 1 and kept.total_bytes == 20


def test_discard_and_clear_forget() -> None:
    kept = memo()
    kept.put("a", "A", 5)
    kept.put("b", "B", 5)
    kept.discard("a")
    kept.discard("missing")
    assert kept.get("a") is None and kept.total_bytes == 5
    kept.clear()
    assert len(kept) == 0 and kept.total_bytes == 0


@pytest.mark.parametrize(
    "bounds",
    [
        {"entries": 0, "total_bytes": 10, "entry_bytes": 10},
        {"entries": 1, "total_bytes": 0, "entry_bytes": 0},
        {"entries": 1, "total_bytes": 10, "entry_bytes": 11},
    ],
)
def test_bounds_must_be_positive(bounds: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="memo bounds"):
        MemoBounds(**bounds)


def test_a_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        memo().put("a", "A", -1)
