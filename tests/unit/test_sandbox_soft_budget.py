"""The sandbox worker's CPU budget ends a task wherever its timer fires, even inside a library that turns any
Exception it catches into an error of its own (sqlglot's tokenizer makes one a TokenError, which the SQL
analysis would answer as FORBIDDEN_CONSTRUCT instead of the budget's PARSE_ERROR)."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
import sqlglot
from sqlglot.errors import SqlglotError

from sinks.scripting import child

pytestmark = pytest.mark.unit

LONG_SQL = "SELECT " + ", ".join(f"c{i} + {i} * 2 AS a{i}" for i in range(5_000)) + " FROM wide"  # noqa: S608


@pytest.fixture
def soft_budget_timer() -> Iterator[None]:
    previous = signal.signal(signal.SIGPROF, child._over_soft_budget)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.mark.usefixtures("soft_budget_timer")
def test_the_budget_ending_inside_the_sql_tokenizer_is_still_the_budget() -> None:
    signal.setitimer(signal.ITIMER_PROF, 0.005)
    deadline = time.monotonic() + 60
    with pytest.raises(child._SoftBudget):  # noqa: PT012 - tokenizing until the timer fires
        while time.monotonic() < deadline:  # nearly all of this loop's CPU is inside the tokenizer
            try:
                sqlglot.tokenize(LONG_SQL, read="duckdb")
            except SqlglotError as exc:
                pytest.fail(f"the budget became {type(exc).__name__}")
