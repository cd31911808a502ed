"""The sandbox worker's CPU budget ends a task wherever its timer fires, even inside a library that turns any
Exception it catches into an error of its own (sqlglot's tokenizer makes one a TokenError, which the SQL
analysis would answer as FORBIDDEN_CONSTRUCT instead of the budget's PARSE_ERROR).

The check runs in a process of its own, as a sandbox worker does: Python runs a signal's handler in the main
thread only, which a test runner's thread may not be."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

# The worker's own handler and timer, around a loop that spends nearly all its CPU inside the tokenizer.
PROBE = """
import signal, sqlglot
from sqlglot.errors import SqlglotError
from sinks.scripting import child

sql = "SELECT " + ", ".join(f"c{i} + {i} * 2 AS a{i}" for i in range(5_000)) + " FROM wide"
sqlglot.tokenize(sql, read="duckdb")  # the dialect's first use imports it: outside the timer
signal.signal(signal.SIGPROF, child._over_soft_budget)
signal.setitimer(signal.ITIMER_PROF, 0.005)
try:
    for _ in range(10_000):
        sqlglot.tokenize(sql, read="duckdb")
    print("never")
except child._SoftBudget:
    print("budget")
except SqlglotError as exc:
    print(type(exc).__name__)
"""


def test_the_budget_ending_inside_the_sql_tokenizer_is_still_the_budget() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    assert ran.stdout.strip() == "budget", ran.stderr
