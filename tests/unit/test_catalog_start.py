from pathlib import Path
from typing import Any

import pytest
from pyiceberg.catalog.sql import SqlCatalog
from sqlalchemy.exc import OperationalError

from sinks.iceberg import catalog

pytestmark = pytest.mark.unit


def test_a_catalog_created_by_another_process_meanwhile_is_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = SqlCatalog
    calls: list[int] = []

    def racing(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            # SQLite's answer when another process made the table between pyiceberg's check and its CREATE.
            raise OperationalError(
                "CREATE TABLE iceberg_tables", {}, Exception("table iceberg_tables already exists")
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(catalog, "SqlCatalog", racing)
    made = catalog.make_catalog(f"sqlite:///{tmp_path / 'svc.db'}", str(tmp_path / "warehouse"))
    assert len(calls) == 2
    assert made.list_namespaces() == []


def test_other_database_errors_are_not_swallowed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise OperationalError("SELECT 1", {}, Exception("disk I/O error"))

    monkeypatch.setattr(catalog, "SqlCatalog", broken)
    with pytest.raises(OperationalError, match="disk I/O error"):
        catalog.make_catalog(f"sqlite:///{tmp_path / 'svc.db'}", str(tmp_path / "warehouse"))
