"""The result cache's key (core/sql/cache_key.py): every part of a plan that shapes its result changes the
key, the parts that do not leave it alone, and a query whose answer depends on the moment has none."""

from __future__ import annotations

from typing import Any

import pytest

from core.sql.cache_key import cache_key, depends_on_the_moment
from schemas.jobs import MaskedPlan, QueryPlan, ViewPlan

pytestmark = pytest.mark.unit

SQL = 'SELECT "region", count(*) AS "n" FROM "orders" GROUP BY 1'
TYPES = [["LONG", "STRING", "STRING"]]  # the column types of the one view


def plan(**changes: Any) -> QueryPlan:
    view = {
        "view": "orders",
        "table_id": "t1",
        "columns": ["order_id", "region", "email"],
        "row_filter": None,
        "snapshot_id": None,
        "read_snapshot_id": 41,
        "absent_columns": [],
    }
    view.update(changes.pop("view", {}))
    fields: dict[str, Any] = {
        "sql": SQL,
        "views": [ViewPlan(**view)],
        "masked": [],
        "json_columns": [],
        "max_rows": 1000,
        "max_result_bytes": 2**30,
        "timeout_seconds": 60.0,
    }
    fields.update(changes)
    return QueryPlan(**fields)


def test_the_same_plan_gives_the_same_key() -> None:
    assert cache_key(plan(), False, TYPES) == cache_key(plan(), False, TYPES)
    assert len(cache_key(plan(), False, TYPES) or "") == 64


def test_the_time_limit_does_not_shape_the_result() -> None:
    assert cache_key(plan(timeout_seconds=5.0), False, TYPES) == cache_key(plan(), False, TYPES)


MASKED = MaskedPlan(index=2, table_id="t1", column="email", mask_strategy="FULL", revealable=True)


@pytest.mark.parametrize(
    "changes",
    [
        {"sql": SQL + " ORDER BY 2"},
        {"view": {"read_snapshot_id": 42}},  # a commit to the table since
        {"view": {"read_snapshot_id": None}},
        {"view": {"snapshot_id": 41}},  # the same snapshot, read as of it
        {"view": {"table_id": "t2"}},
        {"view": {"columns": ["order_id", "region"]}},  # a hidden column
        {"view": {"row_filter": "region = 'EU'"}},
        {"view": {"row_filter": "region = 'US'"}},
        {"view": {"absent_columns": ["segment"]}},
        {"masked": [MASKED]},
        {"masked": [MASKED.model_copy(update={"revealable": False})]},
        {"masked": [MASKED.model_copy(update={"mask_strategy": "LAST4"})]},
        {"json_columns": [1]},
        {"max_rows": 10},
        {"max_result_bytes": 2**20},
    ],
)
def test_every_result_shaping_part_changes_the_key(changes: dict[str, Any]) -> None:
    assert cache_key(plan(**changes), False, TYPES) != cache_key(plan(), False, TYPES)


@pytest.mark.parametrize(
    "types",
    [
        [["LONG", "STRING", "STRING", "STRING"]],  # a column added
        [["INT", "STRING", "STRING"]],  # a column of another type (a widening changes it)
        [["LONG", "STRING", "STRING"], []],
    ],
)
def test_the_column_types_are_part_of_the_key(types: list[list[str]]) -> None:
    assert cache_key(plan(), False, types) != cache_key(plan(), False, TYPES)


def test_the_reveal_flag_is_part_of_the_key() -> None:
    assert cache_key(plan(), True, TYPES) != cache_key(plan(), False, TYPES)


def test_the_view_order_is_part_of_the_key() -> None:
    one = ViewPlan(view="a", table_id="t1", columns=["x"], read_snapshot_id=1)
    two = ViewPlan(view="b", table_id="t2", columns=["x"], read_snapshot_id=2)
    assert cache_key(plan(views=[one, two]), False, TYPES) != cache_key(plan(views=[two, one]), False, TYPES)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT CURRENT_DATE AS d",
        "SELECT date_trunc('DAY', CURRENT_TIMESTAMP) AS d",
        "SELECT current_time AS t",
        "SELECT LOCALTIMESTAMP AS t",
        "SELECT now() AS t",
        "SELECT random() AS r",
        "SELECT uuid () AS u",
    ],
)
def test_a_query_that_depends_on_the_moment_has_no_key(sql: str) -> None:
    assert depends_on_the_moment(sql)
    assert cache_key(plan(sql=sql), False, TYPES) is None


def test_a_row_filter_that_depends_on_the_moment_makes_no_key() -> None:
    changed = plan(view={"row_filter": "placed_at > CURRENT_DATE - INTERVAL 30 DAY"})
    assert cache_key(changed, False, TYPES) is None


@pytest.mark.parametrize(
    "sql",
    [
        'SELECT "current_date_x", "nowhere" FROM "orders"',
        'SELECT "now" FROM "orders"',  # a column named now, not the function
        "SELECT known() FROM orders",
        'SELECT "my_current_date" FROM "orders"',
    ],
)
def test_names_that_only_look_alike_keep_the_key(sql: str) -> None:
    assert not depends_on_the_moment(sql)
