"""Which files a preview opens, round by round (``sinks/preview_plan.py``)."""

from __future__ import annotations

import pytest

from sinks.preview_plan import DataFile, in_id_order, next_round

pytestmark = pytest.mark.unit


def files(*spec: tuple[int | None, int]) -> list[DataFile]:
    return [DataFile(f"f{i}", 100 * (i + 1), rows, first) for i, (first, rows) in enumerate(spec)]


def test_files_are_opened_in_order_of_their_lowest_id_unbounded_first() -> None:
    ordered = in_id_order(files((30, 5), (None, 5), (10, 5)))
    assert [f.first_id for f in ordered] == [None, 10, 30]


def test_a_round_opens_files_until_they_hold_the_missing_rows() -> None:
    pending = in_id_order(files((1, 40), (41, 40), (81, 40)))
    assert next_round(pending, kept=0, limit=50, last_id=None, rows_read=0) == 2
    assert next_round(pending, kept=0, limit=10, last_id=None, rows_read=0) == 1
    # A filter kept 3 of the 40 rows read: the next round reads at least as many rows again.
    assert next_round(pending[1:], kept=3, limit=10, last_id=7, rows_read=40) == 1
    assert next_round(pending[1:], kept=3, limit=10, last_id=7, rows_read=41) == 2


def test_at_the_limit_only_files_that_may_hold_a_smaller_id_are_opened() -> None:
    pending = in_id_order(files((5, 10), (9, 10), (50, 10)))
    assert next_round(pending, kept=10, limit=10, last_id=9, rows_read=10) == 2
    assert next_round(pending[2:], kept=10, limit=10, last_id=12, rows_read=30) == 0
    assert next_round([], kept=0, limit=10, last_id=None, rows_read=0) == 0
    assert next_round(in_id_order(files((None, 1))), kept=10, limit=10, last_id=3, rows_read=5) == 1
