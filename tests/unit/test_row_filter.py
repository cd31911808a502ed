import pytest

from core.row_filter import RowFilterError, check_row_filter

pytestmark = pytest.mark.unit
COLUMNS = {"region", "amount", "created_at"}


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("region = 'EU'", "region = 'EU'"),
        ("region IN ('EU', 'US') AND amount > 10", "region IN ('EU', 'US') AND amount > 10"),
        ("created_at >= DATE '2026-01-01'", "created_at >= CAST('2026-01-01' AS DATE)"),
        ("NOT (amount IS NULL)", "NOT (amount IS NULL)"),
    ],
)
def test_accepted(text: str, canonical: str) -> None:
    assert check_row_filter(text, COLUMNS) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("region = 'EU'; DROP TABLE t", "single predicate"),
        ("secret = 1", "unknown column"),
        ("region IN (SELECT region FROM other)", "may not contain"),
        ("read_csv('/etc/passwd') IS NOT NULL", "may not contain"),
        ("t.region = 'EU'", "unknown column"),
        ("region = ", "not a valid SQL predicate"),
    ],
)
def test_refused(text: str, message: str) -> None:
    with pytest.raises(RowFilterError, match=message):
        check_row_filter(text, COLUMNS)
