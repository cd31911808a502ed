import pytest

from sinks.db.webhooks.executions import page_window

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("total", "page", "size", "window"),
    [
        (45, 0, 20, (True, 0, 20)),
        (45, 1, 20, (True, 20, 20)),
        (45, 2, 20, (False, 0, 5)),  # the last, partial page: the 5 oldest
        (45, 3, 20, (True, 60, 20)),  # beyond the end: empty
        (1_000_000, 49_999, 20, (False, 0, 20)),
        (1_000_000, 30_000, 20, (False, 399_980, 20)),
        (0, 0, 20, (True, 0, 20)),
    ],
)
def test_page_window(total: int, page: int, size: int, window: tuple[bool, int, int]) -> None:
    assert page_window(total, page, size) == window


def test_windows_cover_every_entry_once() -> None:
    total, size = 103, 10
    newest_first_ranks: list[int] = []
    for page in range((total + size - 1) // size):
        newest, offset, limit = page_window(total, page, size)
        ranks = (
            range(offset, offset + limit)
            if newest
            else [total - 1 - r for r in range(offset + limit - 1, offset - 1, -1)]
        )
        newest_first_ranks += list(ranks)
    assert newest_first_ranks == list(range(total))
