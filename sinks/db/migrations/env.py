"""Alembic environment: runs online against the URL the caller configured."""

from __future__ import annotations

from alembic import context

from sinks.db.engine import make_engine
from sinks.db.models import Base

config = context.config
url = config.get_main_option("sqlalchemy.url")
if not url:
    raise RuntimeError("sqlalchemy.url must be set")


def _ours(obj: object, name: str | None, type_: str, reflected: bool, _compare_to: object) -> bool:
    # pyiceberg's SQL catalog keeps its own tables in the same database; they are not ours to migrate.
    return not (type_ == "table" and reflected and name not in Base.metadata.tables)


engine = make_engine(url)
with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_object=_ours,
    )
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
