from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures import backends, postgres

pytest_plugins = [
    "tests.fixtures.broker",
    "tests.fixtures.stack",
    "tests.fixtures.handler",
    "tests.fixtures.worker",
    "tests.fixtures.tables",
]


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [backends.current().header(), f"metadata database: {postgres.description()}"]


@pytest.fixture(autouse=True, scope="module")
def _drop_module_databases() -> Iterator[None]:
    """On PostgreSQL, the databases a module's fixtures made go when the module is done."""
    mark = postgres.checkpoint()
    yield
    postgres.drop_since(mark)


@pytest.fixture(autouse=True)
def _drop_test_databases(_drop_module_databases: None) -> Iterator[None]:
    """On PostgreSQL, each test's own databases go when its fixtures (stacks included) have been torn down.
    Fixtures of wider scope are set up before this one, so what they made is left to them."""
    mark = postgres.checkpoint()
    yield
    postgres.drop_since(mark)
