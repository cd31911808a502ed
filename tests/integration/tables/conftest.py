"""The tables tests' catalog: pyiceberg's SQL catalog in a SQLite file beside a local warehouse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from sinks.iceberg import catalog as iceberg


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    catalog = iceberg.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", str(tmp_path / "warehouse"))
    yield catalog
    catalog.engine.dispose()
