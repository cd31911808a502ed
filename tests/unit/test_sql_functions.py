"""Trino functions through the SQL front, run by DuckDB, against the values Trino's documentation gives."""

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import duckdb
import pytest

from core.sql.front import SqlError, compile_query, parse_query
from core.sql.functions import java_to_re2_replacement, joda_to_strftime

pytestmark = pytest.mark.unit

TS = "TIMESTAMP '2024-05-15 13:45:30.123 UTC'"
D = "DATE '2024-05-15'"
SUNDAY = "DATE '2024-05-19'"
NUMS = "FROM (VALUES 1, 2, 3) AS t(x)"
PAIRS = "FROM (VALUES (1, 3), (2, 1)) AS t(x, y)"


@pytest.fixture(scope="module")
def db() -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    yield connection
    connection.close()


def run(db: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[object, ...]]:
    compiled = compile_query(parse_query(sql), {})
    return db.execute(compiled.sql).fetchall()


def value(db: duckdb.DuckDBPyConnection, expression: str) -> object:
    rest = ""
    if " FROM (" in expression:
        expression, rest = expression.split(" FROM (", 1)
        rest = " FROM (" + rest
    return run(db, f"SELECT {expression} AS v{rest}")[0][0]


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)


CASES: list[tuple[str, object]] = [
    # date_trunc keeps DATE for DATE input
    (f"date_trunc('day', {TS})", utc(2024, 5, 15)),
    (f"date_trunc('week', {D})", date(2024, 5, 13)),
    (f"date_trunc('month', {D})", date(2024, 5, 1)),
    (f"date_trunc('quarter', {D})", date(2024, 4, 1)),
    (f"date_trunc('quarter', {TS})", utc(2024, 4, 1)),
    (f"date_trunc('year', {D})", date(2024, 1, 1)),
    (f"date_trunc('week', {TS})", utc(2024, 5, 13)),
    (f"date_trunc('month', {TS})", utc(2024, 5, 1)),
    (f"date_add('day', 3, {D})", date(2024, 5, 18)),
    ("date_add('month', 1, DATE '2024-01-31')", date(2024, 2, 29)),
    (f"date_add('hour', 3, {TS})", utc(2024, 5, 15, 16, 45, 30, 123000)),
    (f"date_add('minute', -5, {TS})", utc(2024, 5, 15, 13, 40, 30, 123000)),
    # date_diff counts whole units
    (f"date_diff('day', DATE '2024-01-01', {D})", 135),
    ("date_diff('hour', TIMESTAMP '2024-05-15 00:59:00 UTC', TIMESTAMP '2024-05-15 01:00:00 UTC')", 0),
    (f"date_diff('hour', TIMESTAMP '2024-05-15 00:00:00 UTC', {TS})", 13),
    ("date_diff('month', DATE '2024-01-31', DATE '2024-02-28')", 0),
    ("date_diff('month', DATE '2024-01-31', DATE '2024-02-29')", 1),
    ("date_diff('year', DATE '2023-06-01', DATE '2024-05-31')", 0),
    ("date_diff('day', DATE '2024-05-15', DATE '2024-05-10')", -5),
    ("approx_distinct(x) FROM (VALUES 1, 2, 2) AS t(x)", 2),
    (f"approx_percentile(x, 0.5) {NUMS}", 2),
    # format_datetime (Joda)
    (f"format_datetime({TS}, 'yyyy-MM-dd HH:mm:ss.SSS')", "2024-05-15 13:45:30.123"),
    (f"format_datetime({TS}, 'yy MMM dd hh a EEE E')", "24 May 15 01 PM Wed Wed"),
    (f"format_datetime({TS}, 'EEEE, MMMM d, yyyy')", "Wednesday, May 15, 2024"),
    (f"format_datetime({TS}, '''at'' H:mm ''o''''clock''')", "at 13:45 o'clock"),
    (f"format_datetime({TS}, 'yyyy/M/d h:m:s D')", "2024/5/15 1:45:30 136"),
    (f"format_datetime({TS}, 'x-''W''ww e 100%')", "2024-W20 3 100%"),
    # date_format (MySQL)
    (f"date_format({TS}, '%Y-%m-%d %H:%i:%s')", "2024-05-15 13:45:30"),
    (f"date_format({TS}, '%b %W %a %p %c/%e %j')", "May Wednesday Wed PM 5/15 136"),
    (f"date_format({TS}, '%v %x %y %T %f')", "20 2024 24 13:45:30 123000"),
    ("date_parse('2024-05-15 13:45', '%Y-%m-%d %H:%i')", utc(2024, 5, 15, 13, 45).replace(tzinfo=None)),
    ("from_iso8601_timestamp('2024-05-15T13:45:30+02:00')", utc(2024, 5, 15, 11, 45, 30)),
    ("from_iso8601_timestamp('2024-05-15T13:45:30Z')", utc(2024, 5, 15, 13, 45, 30)),
    ("from_iso8601_date('2024-05-15')", date(2024, 5, 15)),
    (f"to_unixtime({TS})", 1715780730.123),
    ("from_unixtime(1715780730)", utc(2024, 5, 15, 13, 45, 30)),
    (f"year({TS})", 2024),
    (f"quarter({TS})", 2),
    (f"month({D})", 5),
    (f"week({D})", 20),
    ("week(DATE '2021-01-03')", 53),
    (f"day({D})", 15),
    (f"day_of_week({D})", 3),
    (f"day_of_week({SUNDAY})", 7),
    (f"dow({SUNDAY})", 7),
    (f"day_of_year({D})", 136),
    (f"hour({TS})", 13),
    (f"minute({TS})", 45),
    (f"second({TS})", 30),
    (f"extract(year FROM {TS})", 2024),
    (f"extract(dow FROM {SUNDAY})", 7),
    (f"extract(day_of_week FROM {SUNDAY})", 7),
    (f"extract(doy FROM {D})", 136),
    (f"extract(hour FROM {TS})", 13),
    # conditionals and casts
    ("coalesce(NULL, 1)", 1),
    ("nullif(1, 1)", None),
    ("if(1 > 0, 'a', 'b')", "a"),
    ("if(1 < 0, 'a')", None),
    ("CASE WHEN 1 = 2 THEN 'x' WHEN 2 = 2 THEN 'y' ELSE 'z' END", "y"),
    ("CASE 2 WHEN 1 THEN 'x' ELSE 'z' END", "z"),
    ("try_cast('x' AS integer)", None),
    ("cast('1' AS bigint)", 1),
    ("cast(1.256 AS decimal(10, 2))", Decimal("1.26")),
    ("cast(DATE '2024-05-15' AS varchar)", "2024-05-15"),
    # math
    ("round(2.5)", 3),
    ("round(-2.5)", -3),
    ("round(1.2345, 2)", Decimal("1.23")),
    ("floor(1.5)", 1),
    ("ceil(1.2)", 2),
    ("ceiling(1.2)", 2),
    ("abs(-2)", 2),
    ("power(2, 10)", 1024.0),
    ("sqrt(16)", 4.0),
    ("ln(1)", 0.0),
    ("log10(100)", 2.0),
    ("mod(7, 3)", 1),
    ("mod(-7, 3)", -1),
    ("7 / 2", 3),
    ("-7 / 2", -3),
    ("7.0 / 2", 3.5),
    ("x / 2 FROM (VALUES 7) AS t(x)", 3),
    ("greatest(1, 2, 3)", 3),
    ("least(1, 2, NULL)", None),
    # strings
    ("concat('a', 'b', 'c')", "abc"),
    ("'a' || 'b'", "ab"),
    ("concat('a', NULL)", None),
    ("length('abc')", 3),
    ("lower('AB')", "ab"),
    ("upper('ab')", "AB"),
    ("trim('  a ')", "a"),
    ("ltrim('  a')", "a"),
    ("rtrim('a  ')", "a"),
    ("lpad('ab', 5, 'x')", "xxxab"),
    ("rpad('ab', 5, 'x')", "abxxx"),
    ("lpad('abcdef', 3, 'x')", "abc"),
    ("substr('abcdef', 2, 3)", "bcd"),
    ("substr('abcdef', -2)", "ef"),
    ("substring('abcdef', 2)", "bcdef"),
    ("replace('abc', 'b', 'x')", "axc"),
    ("replace('abcb', 'b')", "ac"),
    ("split('a,b,c', ',')", ["a", "b", "c"]),
    ("split_part('a,b,c', ',', 2)", "b"),
    ("strpos('abc', 'c')", 3),
    ("strpos('abc', 'z')", 0),
    ("starts_with('abc', 'ab')", True),
    ("regexp_like('abc', 'b')", True),
    ("regexp_like('abc', '^b')", False),
    ("regexp_extract('abc123', '[0-9]+')", "123"),
    ("regexp_extract('abc123', '([a-z]+)([0-9]+)', 2)", "123"),
    ("regexp_replace('abcb', 'b', 'x')", "axcx"),
    ("regexp_replace('abcb', 'b')", "ac"),
    ("regexp_replace('abc', '(b)', '$1$1')", "abbc"),
    ("regexp_replace('abc', 'b', '\\$')", "a$c"),
    # JSON and arrays
    ("""json_extract_scalar('{"a": {"b": 1}}', '$.a.b')""", "1"),
    ("""json_extract_scalar('{"a": [10, 20]}', '$.a[1]')""", "20"),
    ("""json_extract('{"a": {"b": 1}}', '$.a')""", '{"b":1}'),
    ("""json_format(json_extract('{"a": {"b": 1}}', '$.a'))""", '{"b":1}'),
    ("cardinality(ARRAY[1, 2])", 2),
    ("contains(ARRAY[1, 2], 2)", True),
    ("element_at(ARRAY[1, 2], 2)", 2),
    ("element_at(ARRAY[1, 2], -1)", 2),
    ("ARRAY[10, 20][1]", 10),
    ("array_join(ARRAY['a', 'b'], ',')", "a,b"),
    # aggregates
    (f"count(x) {NUMS}", 3),
    (f"count(*) {NUMS}", 3),
    (f"count_if(x > 1) {NUMS}", 2),
    (f"sum(x) {NUMS}", 6),
    (f"avg(x) {NUMS}", 2.0),
    (f"min(x) {NUMS}", 1),
    (f"max(x) {NUMS}", 3),
    (f"bool_and(x > 0) {NUMS}", True),
    (f"bool_or(x > 2) {NUMS}", True),
    ("arbitrary(x) FROM (VALUES 5) AS t(x)", 5),
    ("any_value(x) FROM (VALUES 5) AS t(x)", 5),
    (f"max_by(x, y) {PAIRS}", 1),
    (f"min_by(x, y) {PAIRS}", 2),
    (f"stddev(x) {NUMS}", 1.0),
    (f"stddev_samp(x) {NUMS}", 1.0),
    (f"variance(x) {NUMS}", 1.0),
    ("corr(x, y) FROM (VALUES (1, 2), (2, 4), (3, 6)) AS t(x, y)", 1.0),
    (f"count(x) FILTER (WHERE x > 1) {NUMS}", 2),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_function_matches_trino(db: duckdb.DuckDBPyConnection, expression: str, expected: object) -> None:
    got = value(db, expression)
    if isinstance(expected, float):
        assert isinstance(got, int | float | Decimal)
        assert float(got) == pytest.approx(expected)
    else:
        assert got == expected
        if isinstance(expected, date) and not isinstance(expected, datetime):
            assert type(got) is date


def test_window_functions(db: duckdb.DuckDBPyConnection) -> None:
    rows = run(
        db,
        "SELECT x, row_number() OVER (ORDER BY x) AS rn, rank() OVER (ORDER BY x) AS rk, "
        "dense_rank() OVER (ORDER BY x) AS dr, ntile(2) OVER (ORDER BY x) AS nt, "
        "lag(x) OVER (ORDER BY x) AS lg, lead(x, 1, 0) OVER (ORDER BY x) AS ld, "
        "first_value(x) OVER (ORDER BY x) AS fv, last_value(x) OVER (ORDER BY x) AS lv, "
        "sum(x) OVER (PARTITION BY g ORDER BY x) AS running "
        "FROM (VALUES (1, 'a'), (2, 'a'), (2, 'b')) AS t(x, g) ORDER BY x, g",
    )
    assert rows == [
        (1, 1, 1, 1, 1, None, 2, 1, 1, 1),
        (2, 2, 2, 2, 1, 1, 2, 1, 2, 3),
        (2, 3, 2, 2, 2, 2, 0, 1, 2, 2),
    ]


def test_current_date_and_time(db: duckdb.DuckDBPyConnection) -> None:
    today, now, current = run(db, "SELECT current_date, now(), current_timestamp")[0]
    assert today == datetime.now(UTC).date()
    assert isinstance(now, datetime) and isinstance(current, datetime)
    assert abs(now - datetime.now(UTC)) < timedelta(minutes=1)


def test_joda_translation() -> None:
    assert joda_to_strftime("yyyy-MM-dd'T'HH:mm:ss") == "%Y-%m-%dT%H:%M:%S"
    assert joda_to_strftime("'100%' EEEE") == "100%% %A"
    assert joda_to_strftime("h 'o''clock' ''") == "%-I o'clock '"


@pytest.mark.parametrize("pattern", ["G", "C", "k", "K", "Z", "SS", "'open"])
def test_unsupported_joda_letters_are_refused(pattern: str) -> None:
    quoted = pattern.replace("'", "''")
    with pytest.raises(SqlError) as info:
        compile_query(parse_query(f"SELECT format_datetime({TS}, '{quoted}')"), {})
    assert info.value.code == "FORBIDDEN_CONSTRUCT"


def test_non_literal_patterns_are_refused() -> None:
    for sql in (
        "SELECT format_datetime(current_timestamp, x) FROM (VALUES 'yyyy') AS t(x)",
        "SELECT regexp_replace('a', 'a', x) FROM (VALUES 'b') AS t(x)",
        "SELECT regexp_replace('a', '(?<n>a)', '${n}')",
    ):
        with pytest.raises(SqlError) as info:
            compile_query(parse_query(sql), {})
        assert info.value.code == "FORBIDDEN_CONSTRUCT"


def test_java_replacement_translation() -> None:
    assert java_to_re2_replacement("$1-$2") == "\\1-\\2"
    assert java_to_re2_replacement("\\$\\\\") == "$\\\\"
