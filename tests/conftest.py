from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import backends, postgres, tls

tls.share_tls_contexts()

ROOT = Path(__file__).resolve().parent.parent

pytest_plugins = [
    "tests.fixtures.broker",
    "tests.fixtures.stack",
    "tests.fixtures.handler",
    "tests.fixtures.worker",
    "tests.fixtures.tables",
    "tests.fixtures.up",
    "tests.fixtures.cpu_report",
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


# How `make test` shares the tests out (``--dist loadgroup``; xdist's own grouping by mark does not take
# with pytest 9, so the scheduler is ours). A module whose tests share a fixture of module or class scope is
# one unit of work (its set-up is paid once); every other test is its own unit, so no long module sets the
# suite's end. The e2e tests (the longest) and the shared modules start first; the many short tests
# fill in behind them.
_WIDE_SCOPE = re.compile(r"""scope=["'](module|class|package)["']""")
# Fixtures of wide scope that every module uses and that cost nothing to set up again.
_CHEAP_WIDE_FIXTURES = frozenset({"_drop_module_databases"})


@functools.cache
def _shared_module(path: str) -> bool:
    """Whether the test file at ``path`` (relative to the root) defines a fixture of module or class scope."""
    try:
        return _WIDE_SCOPE.search((ROOT / path).read_text()) is not None
    except OSError:
        return False


def _shares_wide_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definition.scope in ("module", "class", "package")
        for name, definitions in info.name2fixturedefs.items()
        if name not in _CHEAP_WIDE_FIXTURES
        for definition in definitions
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if _shares_wide_fixture(item) and not _shared_module(path):
            raise pytest.UsageError(
                f"{item.nodeid} uses a fixture of module or class scope defined outside {path}; define it "
                "there, or teach tests/conftest.py's scheduler about it"
            )

    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("e2e") is not None:
            return 0
        return 1 if _shared_module(item.nodeid.split("::", 1)[0]) else 2

    items.sort(key=rank)  # stable: the order inside each rank is the collection order


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class SharedModulesTogether(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if _shared_module(path) else nodeid

    return SharedModulesTogether(config, log)
