"""The metadata DB at start-up (`svc up`, `svc migrate`): reachable and migrated, or one line saying why."""

from __future__ import annotations

from sqlalchemy import NullPool, create_engine, make_url, text
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from schemas.settings import Settings
from sinks.db.engine import make_engine
from sinks.db.migrate import upgrade
from svc.shape import database_location

CONNECT_TIMEOUT_SECONDS = 10


def _reason(exc: BaseException, database_url: str) -> str:
    """The driver's first line (``connection refused``, ``password authentication failed ...``), with the
    URL's password taken out should a driver ever repeat it."""
    cause = getattr(exc, "orig", None) or exc
    lines = str(cause).strip().splitlines()
    reason = lines[0].strip() if lines else type(cause).__name__
    try:
        password = make_url(database_url).password
    except ArgumentError:
        password = None
    if password:
        reason = reason.replace(str(password), "***")
    return reason


def _line(what: str, database_url: str, exc: BaseException) -> str:
    return f"{what} ({database_location(database_url)}): {_reason(exc, database_url)}"


def unreachable(database_url: str) -> str | None:
    """None when the database answers ``SELECT 1``; otherwise why not, in one line without a secret."""
    try:
        if database_url.startswith("sqlite"):
            # make_engine creates the file's folder, as every role does.
            engine = make_engine(database_url)
        else:
            url = database_url
            if url.startswith("postgresql://"):
                url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
            # A bounded wait: an address that drops packets would otherwise hold the start for minutes.
            engine = create_engine(
                url, poolclass=NullPool, connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS}
            )
    except (ArgumentError, ImportError, ValueError) as exc:
        return _line("cannot use the metadata database URL", database_url, exc)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        return _line("cannot reach the metadata database", database_url, exc)
    finally:
        engine.dispose()
    return None


def prepare(settings: Settings) -> str | None:
    """Check the database answers, apply the migrations and create the Iceberg catalog's tables; None when
    all went well, otherwise the one line to print."""
    database_url = settings.resolved_database_url
    problem = unreachable(database_url)
    if problem is not None:
        return problem
    try:
        upgrade(database_url)
        # Imported here: Iceberg's catalog costs a third of a second to import.
        from sinks.iceberg.catalog import catalog_for

        # The catalog's own tables are created once here, before the children race to create them.
        catalog_for(settings).engine.dispose()
    except SQLAlchemyError as exc:
        return _line("cannot migrate the metadata database", database_url, exc)
    return None
