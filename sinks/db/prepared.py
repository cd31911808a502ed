"""Hot statements run on the driver's cursor: compiled once per dialect, bound per call.

SQLAlchemy's execution of a Core statement (its execution context, parameter processing and result set-up)
costs several times a primary-key read of SQLite on every call, even for a statement built once. For the
few statements the trigger runs once per request (the deduplication lookup and claim), :class:`Prepared`
keeps SQLAlchemy as the compiler and the connection's owner and runs the compiled SQL on the DBAPI cursor
of the same connection (the same transaction), with the bound values passed through the statement's own
bind processors (so a ``UTCDateTime`` is stored exactly as the ORM stores it).

A DBAPI error is raised as the ``sqlalchemy.exc.DBAPIError`` subclass SQLAlchemy itself would raise
(``OperationalError``, ``IntegrityError``...), its parameters hidden, so the callers' error handling (the
group commit's, :mod:`sinks.db.availability`'s) sees what it would see from ``Connection.execute``.

Only for statements whose result columns need no processing (plain strings and numbers): rows come back as the
driver returns them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.expression import Executable


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # every bind, in the statement's order when ``positional``
    positional: bool  # qmark style (SQLite); else named (pyformat: psycopg)
    processors: Mapping[str, Callable[[Any], Any]]


class Prepared:
    """``statement`` compiled once per dialect; :meth:`rows` runs it on a connection's cursor."""

    def __init__(self, statement: Executable) -> None:
        self._statement = statement
        self._by_dialect: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect.name)
        if found is not None:
            return found
        with self._lock:
            compiled = self._statement.compile(dialect=dialect)  # type: ignore[attr-defined]
            positional = bool(compiled.positional)
            names = tuple(compiled.positiontup) if positional else tuple(compiled.binds)
            found = _Compiled(str(compiled.string), names, positional, dict(compiled._bind_processors))
            self._by_dialect[dialect.name] = found
            return found

    def bound(self, dialect: Dialect, params: Mapping[str, Any]) -> tuple[str, Any]:
        """The SQL and the driver's parameters for ``params`` (every bind by name)."""
        compiled = self._compiled(dialect)
        processors = compiled.processors

        def value(name: str) -> Any:
            processor = processors.get(name)
            given = params[name]
            return given if processor is None or given is None else processor(given)

        if compiled.positional:
            return compiled.sql, tuple(value(name) for name in compiled.names)
        return compiled.sql, {name: value(name) for name in compiled.names}

    def rows(self, connection: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Run the statement in ``connection``'s current transaction (or none) and return its rows."""
        dialect = connection.dialect
        sql, values = self.bound(dialect, params)
        cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        dbapi = dialect.loaded_dbapi
        try:
            cursor.execute(sql, values)
            return list(cursor.fetchall()) if cursor.description is not None else []
        except dbapi.Error as error:
            raise sa_exc.DBAPIError.instance(
                sql, values, error, dbapi.Error, hide_parameters=True, dialect=dialect
            ) from error
        finally:
            cursor.close()
