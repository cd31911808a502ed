"""Time travel in the SQL front: ``FOR VERSION AS OF`` and ``FOR TIMESTAMP AS OF`` (Trino's syntax) parse into
table readings, other forms are refused, and a table read now and as of a snapshot compiles to two views,
each with its own columns."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from core.sql import remote
from core.sql.as_of import SnapshotNotFound, filter_columns, parse_timestamp, pick_snapshot
from core.sql.front import (
    QueryColumn,
    QueryTable,
    SqlError,
    TableRef,
    compile_query,
    parse_query,
    partition_predicates,
)
from core.sql.model import AsOf
from schemas.column_types import parse_column_type

pytestmark = pytest.mark.unit

OLD = 8_123_456_789_012_345_678  # past 2^53: exact only as an integer or a string
NOON = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
SYSTEM = [("_load_id", "STRING", False), ("_record_id", "LONG", False)]
NOW_COLUMNS = [("sale_id", "LONG", False), ("customer", "STRING", False), ("note", "STRING", True)]


def _table(columns: list[tuple[str, str, bool]], as_of: AsOf | None = None) -> QueryTable:
    shape = tuple(QueryColumn(n, parse_column_type(t), m) for n, t, m in columns + SYSTEM)
    return QueryTable("sales", shape, ("customer",), as_of)


SALES_NOW = _table([*NOW_COLUMNS, ("region", "STRING", False)])
SALES_THEN = _table(NOW_COLUMNS, AsOf(snapshot_id=OLD))  # before region was added
SALES_AT_NOON = _table(NOW_COLUMNS, AsOf(timestamp=NOON))
TABLES = {t.ref.key: t for t in (SALES_NOW, SALES_THEN, SALES_AT_NOON)}


def q(template: str, text: str = "") -> str:
    """Test-written SQL with the old snapshot's id (and ``text``) in place."""
    return template.replace("$OLD", str(OLD)).replace("$NEXT", str(OLD + 1)).replace("$TEXT", text)


def refused(sql: str) -> SqlError:
    with pytest.raises(SqlError) as caught:
        compile_query(parse_query(sql), TABLES)
    return caught.value


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (q("SELECT * FROM sales FOR VERSION AS OF $OLD"), AsOf(snapshot_id=OLD)),
        (q("SELECT * FROM sales FOR VERSION AS OF '$OLD'"), AsOf(snapshot_id=OLD)),
        ("SELECT * FROM sales FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01 12:00:00 UTC'", AsOf(timestamp=NOON)),
        ("SELECT * FROM sales FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01 12:00:00'", AsOf(timestamp=NOON)),
        (
            "SELECT * FROM sales FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01T14:00:00+02:00'",
            AsOf(timestamp=NOON),
        ),
        (
            "SELECT * FROM \"SALES\" FOR TIMESTAMP AS OF CAST('2024-05-01 12:00' AS TIMESTAMP)",
            AsOf(timestamp=NOON),
        ),
        (q("SELECT s.sale_id FROM sales FOR VERSION AS OF $OLD AS s"), AsOf(snapshot_id=OLD)),
        (q('SELECT "Old".sale_id FROM sales FOR VERSION AS OF $OLD "Old"'), AsOf(snapshot_id=OLD)),
    ],
)
def test_both_forms_parse_into_a_reading_of_the_table(sql: str, expected: AsOf) -> None:
    parsed = parse_query(sql)
    assert parsed.table_names == ("sales",)
    assert parsed.refs == (TableRef("sales", expected),)


def test_each_distinct_reading_is_listed_once_in_order() -> None:
    sql = (
        "SELECT 1 FROM sales JOIN sales FOR VERSION AS OF $OLD o ON true "
        "JOIN sales FOR VERSION AS OF '$OLD' p ON true "
        "JOIN sales FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01 14:00:00 Europe/Paris' q ON true"
    )
    parsed = parse_query(q(sql))
    assert parsed.table_names == ("sales",)
    assert [ref.key for ref in parsed.refs] == [
        "sales",
        q("sales@version=$OLD"),
        "sales@timestamp=2024-05-01 12:00:00.000000",
    ]
    assert parsed.refs[1].label == q("sales FOR VERSION AS OF $OLD")
    assert parsed.refs[2].label == "sales FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01 12:00:00.000000 UTC'"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC)),
        ("2024-05-01 12:00:00.123456789 UTC", NOON.replace(microsecond=123456)),
        ("2024-05-01T12:00:00.5Z", NOON.replace(microsecond=500000)),
        ("2024-05-01 07:00:00-0500", NOON),
        ("2024-05-01 9:00 -03:00", NOON),
        ("2024-01-01 13:00:00 Europe/Paris", datetime(2024, 1, 1, 12, tzinfo=UTC)),
    ],
)
def test_timestamp_literals_are_read_in_utc(text: str, expected: datetime) -> None:
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize(
    "text",
    ["yesterday", "2024-13-01 00:00:00", "2024-05-01 25:00:00", "2024-05-01 10:00 Mars/Base", "2024-05-01 x"],
)
def test_a_literal_that_is_no_timestamp_is_a_parse_error(text: str) -> None:
    error = refused(q("SELECT * FROM sales FOR TIMESTAMP AS OF TIMESTAMP '$TEXT'", text=text))
    assert error.code == "PARSE_ERROR"
    assert "is not a timestamp" in error.message and "UTC" in (error.hint or "")


@pytest.mark.parametrize(
    "clause",
    [
        "FOR VERSION BETWEEN 1 AND 2",
        "FOR VERSION FROM 1 TO 2",
        "FOR VERSION AS OF 1 + 1",
        "FOR VERSION AS OF -1",
        "FOR VERSION AS OF 1.5",
        "FOR VERSION AS OF sale_id",
        "FOR VERSION AS OF 'latest'",
        "FOR VERSION AS OF 99999999999999999999",
        "FOR TIMESTAMP AS OF '2024-05-01 12:00:00'",
        "FOR TIMESTAMP AS OF DATE '2024-05-01'",
        "FOR TIMESTAMP AS OF current_timestamp",
        "FOR TIMESTAMP AS OF now() - INTERVAL '1' DAY",
        "FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01' + INTERVAL '1' DAY",
    ],
)
def test_other_forms_are_forbidden_with_a_hint_naming_both_forms(clause: str) -> None:
    error = refused(q("SELECT * FROM sales $TEXT", text=clause))
    assert error.code == "FORBIDDEN_CONSTRUCT", error
    assert "FOR VERSION AS OF <snapshotId>" in (error.hint or "")
    assert "/svc_poweruser/analytics/tables/snapshots" in (error.hint or "")


def test_a_with_query_cannot_be_read_as_of_a_snapshot() -> None:
    error = refused("WITH sales AS (SELECT 1 AS a) SELECT * FROM sales FOR VERSION AS OF 1")
    assert error.code == "FORBIDDEN_CONSTRUCT" and "WITH query" in error.message


def test_a_qualified_name_stays_unknown_with_time_travel() -> None:
    assert refused("SELECT * FROM other.sales FOR VERSION AS OF 1").code == "UNKNOWN_TABLE"


def test_the_table_now_and_then_are_two_views_with_their_own_columns() -> None:
    sql = (
        "SELECT n.sale_id, n.region, o.* FROM sales n "
        "LEFT JOIN sales FOR VERSION AS OF $OLD o ON n.sale_id = o.sale_id"
    )
    compiled = compile_query(parse_query(q(sql)), TABLES)
    assert compiled.tables == ("sales",)
    assert compiled.refs == ("sales", q("sales@version=$OLD"))
    assert compiled.views["sales"] == "sales#svc"
    assert compiled.views[q("sales@version=$OLD")] not in ("sales#svc",)
    # The old reading has no region: * expands to the columns it had.
    assert compiled.output_names == (
        "sale_id", "region", "sale_id", "customer", "note", "_load_id", "_record_id",
    )  # fmt: skip
    assert compiled.masked_outputs[4] is not None
    assert compiled.masked_outputs[4].table == q("sales@version=$OLD")


def test_a_column_added_after_the_snapshot_is_unknown_only_when_named() -> None:
    compile_query(parse_query(q("SELECT * FROM sales FOR VERSION AS OF $OLD")), TABLES)
    for sql in (
        q("SELECT region FROM sales FOR VERSION AS OF $OLD"),
        q("SELECT o.region FROM sales FOR VERSION AS OF $OLD o"),
        q("SELECT sale_id FROM sales FOR VERSION AS OF $OLD WHERE region = 'EU'"),
    ):
        error = refused(sql)
        assert error.code == "UNKNOWN_COLUMN", sql
        assert q("sales FOR VERSION AS OF $OLD") in (error.hint or "") + error.message
        assert "region" not in (error.hint or "")


def test_masked_columns_keep_their_rules_in_the_past() -> None:
    assert refused(q("SELECT sale_id FROM sales FOR VERSION AS OF $OLD WHERE note = 'x'")).code == (
        "FORBIDDEN_CONSTRUCT"
    )


def test_an_unresolved_reading_is_an_unknown_table() -> None:
    parsed = parse_query(q("SELECT * FROM sales FOR VERSION AS OF $NEXT"))
    with pytest.raises(SqlError) as caught:
        compile_query(parsed, TABLES)
    assert caught.value.code == "UNKNOWN_TABLE"


def test_the_compiled_sql_reads_each_view() -> None:
    sql = (
        "SELECT n.sale_id, o.customer AS then_customer FROM sales AS n "
        "LEFT JOIN sales FOR VERSION AS OF $OLD AS o ON n.sale_id = o.sale_id ORDER BY n.sale_id"
    )
    compiled = compile_query(parse_query(q(sql)), TABLES)
    db = duckdb.connect()
    now, then = compiled.views["sales"], compiled.views[q("sales@version=$OLD")]
    db.execute(
        "CREATE TABLE now AS SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c')) AS t(sale_id, customer)"
    )
    db.execute("CREATE TABLE past AS SELECT * FROM (VALUES (1, 'a')) AS t(sale_id, customer)")
    db.execute(q('ALTER TABLE now RENAME TO "$TEXT"', text=now))
    db.execute(q('ALTER TABLE past RENAME TO "$TEXT"', text=then))
    assert db.execute(compiled.sql).fetchall() == [(1, "a"), (2, None), (3, None)]


def test_partition_predicates_are_kept_per_reading() -> None:
    sql = (
        "SELECT 1 FROM sales n JOIN sales FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01 12:00:00' o "
        "ON n.sale_id = o.sale_id WHERE n.customer = 'bob' AND o.customer = 'ann'"
    )
    parsed = parse_query(sql)
    found = partition_predicates(parsed, TABLES)
    assert found == {
        "sales": [[("customer", "=", "bob")]],
        "sales@timestamp=2024-05-01 12:00:00.000000": [[("customer", "=", "ann")]],
    }


def test_readings_and_their_tables_cross_the_sandbox_as_json() -> None:
    sql = q("SELECT n.sale_id FROM sales n JOIN sales FOR VERSION AS OF '$OLD' o ON n.sale_id = o.sale_id")
    parsed = json.loads(json.dumps(remote.parse_task({"sql": sql})))
    assert parsed["tables"] == ["sales"]
    assert tuple(remote.decode_ref(ref) for ref in parsed["refs"]) == parse_query(sql).refs
    assert parsed["refs"][1]["asOf"] == {"snapshotId": str(OLD)}
    payload = {"sql": sql, "tables": [remote.encode_table(t) for t in TABLES.values()]}
    result = json.loads(json.dumps(remote.compile_task(payload)))
    assert "error" not in result, result
    assert remote.decode_compiled(result["compiled"]) == compile_query(parse_query(sql), TABLES)
    assert remote.decode_table(remote.encode_table(SALES_AT_NOON)) == SALES_AT_NOON


def test_filter_columns_names_the_row_filters_columns() -> None:
    assert filter_columns("customer = 'bob' AND (upper(Region) IN ('EU') OR x IS NULL)") == {
        "customer",
        "region",
        "x",
    }


# Picking the snapshot a reading reads, from the table's snapshot log.

FIRST, SECOND, THIRD = 11, 22, 33
LOG = [(1_000, FIRST), (2_000, SECOND), (3_000, THIRD)]
NOW = datetime(2030, 1, 1, tzinfo=UTC)


def _at(ms: int) -> TableRef:
    return TableRef("sales", AsOf(timestamp=datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)))


def _pick(ref: TableRef, snapshots: set[int] | None = None, log: list[tuple[int, int]] = LOG) -> int | None:
    held = {FIRST, SECOND, THIRD} if snapshots is None else snapshots
    current = log[-1][1] if log else None
    return pick_snapshot(ref, snapshots=held, log=log, current=current, now=NOW)


def test_a_version_reads_that_snapshot_and_now_reads_the_current_one() -> None:
    assert _pick(TableRef("sales", AsOf(snapshot_id=SECOND))) == SECOND
    assert _pick(TableRef("sales")) == THIRD


def test_a_moment_reads_the_snapshot_current_then() -> None:
    assert _pick(_at(1_000)) == FIRST  # committed exactly then: included
    assert _pick(_at(1_999)) == FIRST
    assert _pick(_at(2_000)) == SECOND
    assert _pick(_at(2_500)) == SECOND
    assert _pick(_at(9_999)) == THIRD


def test_a_moment_in_the_future_reads_the_current_snapshot() -> None:
    future = TableRef("sales", AsOf(timestamp=NOW + timedelta(days=1)))
    assert _pick(future) == THIRD
    assert pick_snapshot(future, snapshots=set(), log=[], current=None, now=NOW) is None


def test_an_unknown_version_is_not_found_with_the_snapshots_hint() -> None:
    with pytest.raises(SnapshotNotFound) as caught:
        _pick(TableRef("sales", AsOf(snapshot_id=44)))
    assert caught.value.message == 'Table "sales" has no snapshot 44'
    assert "/svc_poweruser/analytics/tables/snapshots" in caught.value.hint


def test_a_moment_before_the_oldest_snapshot_is_not_found() -> None:
    with pytest.raises(SnapshotNotFound) as caught:
        _pick(_at(999))
    assert caught.value.message == 'Table "sales" has no snapshot at or before 1970-01-01T00:00:00.999'
    assert "oldest snapshot was committed at 1970-01-01T00:00:01.000" in caught.value.hint
    with pytest.raises(SnapshotNotFound) as caught:
        pick_snapshot(_at(5), snapshots=set(), log=[], current=None, now=NOW)
    assert "no snapshot yet" in caught.value.hint


def test_an_expired_snapshot_is_skipped_in_the_log() -> None:
    assert _pick(_at(2_500), snapshots={FIRST, THIRD}) == FIRST
    with pytest.raises(SnapshotNotFound) as caught:
        _pick(_at(2_500), snapshots={THIRD})
    assert "oldest snapshot was committed at 1970-01-01T00:00:03.000" in caught.value.hint
