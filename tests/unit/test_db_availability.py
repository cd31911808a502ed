"""Which metadata-DB errors mean "unreachable, retry later", the pauses between tries, the outage clock, the
log description that carries no secret, and the 503 body of each area."""

import json
import sqlite3
from pathlib import Path

import psycopg
import pytest
from psycopg import errors as pg_errors
from sqlalchemy import create_engine, text
from sqlalchemy import exc as sa_exc

from ingress.errors import DATABASE_UNAVAILABLE, database_unavailable, unavailable_response
from sinks.db.availability import (
    Backoff,
    DatabaseUnreachable,
    OutageClock,
    contention,
    describe,
    redact,
    unreachable,
)
from sinks.db.write_lock import WriteLockTimeout

pytestmark = pytest.mark.unit


def _wrapped(orig: Exception, kind: type[sa_exc.DBAPIError] = sa_exc.OperationalError) -> sa_exc.DBAPIError:
    return kind("SELECT * FROM t WHERE secret = %(s)s", {"s": "the-payload"}, orig)


def _sqlite_error(path: Path, statement: str) -> sa_exc.DBAPIError:
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})
    try:
        with engine.begin() as connection:
            connection.execute(text(statement))
    except sa_exc.DBAPIError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("the statement did not fail")


@pytest.mark.parametrize(
    "orig",
    [
        psycopg.OperationalError("connection failed: connection refused"),  # no SQLSTATE: the client's own
        pg_errors.AdminShutdown("terminating connection due to administrator command"),
        pg_errors.CannotConnectNow("the database system is starting up"),
        pg_errors.ConnectionFailure("connection failure"),
        pg_errors.TooManyConnections("sorry, too many clients already"),
        psycopg.InterfaceError("the connection is closed"),
    ],
)
def test_connection_failures_of_postgresql_are_unreachable(orig: Exception) -> None:
    assert unreachable(_wrapped(orig))
    assert unreachable(orig)
    assert database_unavailable(_wrapped(orig))


@pytest.mark.parametrize(
    "orig",
    [
        pg_errors.QueryCanceled("canceling statement due to statement timeout"),
        pg_errors.SerializationFailure("could not serialize access"),
        pg_errors.UniqueViolation("duplicate key value"),
        pg_errors.UndefinedTable('relation "t" does not exist'),
    ],
)
def test_errors_of_the_work_itself_are_not_unreachable(orig: Exception) -> None:
    assert not unreachable(_wrapped(orig, sa_exc.DBAPIError))
    assert not contention(orig)


def test_an_invalidated_connection_and_the_pool_timeout_are_unreachable() -> None:
    invalidated = sa_exc.DBAPIError("SELECT 1", None, Exception("gone"), connection_invalidated=True)
    assert unreachable(invalidated)
    assert unreachable(sa_exc.TimeoutError("QueuePool limit of size 10 overflow 20 reached"))
    assert unreachable(DatabaseUnreachable("down a moment ago"))
    assert not unreachable(ValueError("not a database error"))


def _read_catalog() -> None:
    try:
        raise _wrapped(psycopg.OperationalError("connection refused"))
    except sa_exc.OperationalError as exc:
        raise RuntimeError("the catalog could not be read") from exc


def test_an_error_raised_from_an_unreachable_one_is_unreachable() -> None:
    with pytest.raises(RuntimeError) as raised:
        _read_catalog()
    assert unreachable(raised.value)


def test_sqlite_busy_and_cannot_open_are_unreachable_and_busy_is_contention(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (v TEXT)")
    holder.execute("BEGIN IMMEDIATE")
    try:
        busy = _sqlite_error(path, "INSERT INTO t VALUES ('x')")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "database is locked" in str(busy)
    assert unreachable(busy) and contention(busy)

    missing = _sqlite_error(tmp_path / "no such dir" / "db.sqlite", "SELECT 1")
    assert unreachable(missing) and not contention(missing)

    broken = _sqlite_error(path, "SELECT * FROM no_such_table")
    assert not unreachable(broken)
    assert database_unavailable(broken)  # the ingress answers any OperationalError with a 503

    assert unreachable(WriteLockTimeout("database is locked (3 tries)"))
    assert contention(WriteLockTimeout("database is locked (3 tries)"))


def test_describe_names_the_error_without_statement_parameters_or_password() -> None:
    orig = psycopg.OperationalError(
        'connection to server at "db" failed for postgresql://svc:hunter2@db/svc password=hunter2 x\n'
        "second line"
    )
    described = describe(_wrapped(orig))
    assert described.startswith("OperationalError(OperationalError): connection to server")
    assert "hunter2" not in described
    assert "the-payload" not in described and "SELECT" not in described and "second line" not in described
    assert "postgresql://svc:***@db/svc" in described and "password=***" in described
    shutdown = describe(_wrapped(pg_errors.AdminShutdown("terminating connection")))
    assert shutdown == "OperationalError(AdminShutdown 57P01): terminating connection"
    pool = describe(sa_exc.TimeoutError("QueuePool limit reached"))
    assert pool == "TimeoutError: QueuePool limit reached"


def test_redact_hides_passwords_in_urls_and_settings() -> None:
    assert redact("postgresql+psycopg://u:p%40ss@h:5432/d") == "postgresql+psycopg://u:***@h:5432/d"
    assert redact("host=h password='a b' user=u") == "host=h password=*** user=u"
    assert redact("no secret here: //host/path") == "no secret here: //host/path"


def test_backoff_doubles_up_to_its_longest_pause() -> None:
    backoff = Backoff(first=0.05, longest=2.0)
    assert [backoff.pause(n) for n in range(1, 8)] == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0]
    assert backoff.pause(1000) == 2.0


def test_the_outage_clock_counts_outages_within_the_horizon() -> None:
    now = [1000.0]
    clock = OutageClock(margin=3.0, horizon=100.0, clock=lambda: now[0])
    assert clock.lag() == 0.0
    clock.answered()  # nothing failed: nothing to count
    assert clock.lag() == 0.0
    clock.failed()
    now[0] = 1010.0
    clock.failed()  # the same outage
    assert clock.lag() == 10.0  # under way
    clock.answered()
    assert clock.lag() == 13.0
    now[0] = 1050.0
    clock.failed()
    now[0] = 1055.0
    clock.answered()
    assert clock.lag() == 13.0 + 8.0  # two outages within the horizon add up
    now[0] = 1055.0 + 21.0 + 100.0
    assert clock.lag() == 0.0


def test_each_area_gets_its_own_503_body_with_retry_after() -> None:
    trigger = unavailable_response("/clients/custom-webhooks")
    analytics = unavailable_response("/clients/svcdb/analytics/append-rows")
    other = unavailable_response("/svc_poweruser/custom-webhooks/get-all")
    for response in (trigger, analytics, other):
        assert response.status_code == 503
        assert int(response.headers["Retry-After"]) > 0
    assert json.loads(bytes(trigger.body)) == {
        "success": False,
        "message": DATABASE_UNAVAILABLE,
        "executionId": None,
        "webhookId": None,
        "errors": [DATABASE_UNAVAILABLE],
    }
    body = json.loads(bytes(analytics.body))
    assert body["errorCode"] == "UNAVAILABLE" and body["errors"] == [DATABASE_UNAVAILABLE] and body["hint"]
    assert json.loads(bytes(other.body)) == {"errors": [DATABASE_UNAVAILABLE]}
