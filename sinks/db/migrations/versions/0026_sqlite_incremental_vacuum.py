"""SQLite in incremental auto-vacuum mode, so the file can shrink after deletions (sinks/db/space.py)

A file created before this revision has no auto-vacuum: the mode is set, then VACUUM rewrites the file once
in it (outside a transaction, as VACUUM must run; it needs free disk space about the file's size while it
runs). A file created since is in the mode from its first page (sinks/db/engine.py) and is left as it is.
PostgreSQL: nothing to do (autovacuum).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

INCREMENTAL = 2


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    if bind.exec_driver_sql("PRAGMA auto_vacuum").scalar() == INCREMENTAL:
        return
    with op.get_context().autocommit_block():
        bind.exec_driver_sql("PRAGMA auto_vacuum=INCREMENTAL")
        bind.exec_driver_sql("VACUUM")


def downgrade() -> None:
    # The mode stays: it changes no table, and the revisions before this one work the same in it.
    pass
