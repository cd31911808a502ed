"""A query inside the static SQL limits but over the analysis CPU budget is refused, and its company is not
locked out. Kept apart from test_sql_budget.py, whose tests share one stack: this test needs a budget far
below the one the others run with, so it has a stack of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.settings import Settings
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.tables import Tables
from tests.integration.analytics.test_sql_budget import (
    TIGHT_CPU_MS,
    WITHIN_LIMITS,
    hostile_company,
    stack_settings,
    timed,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, **stack_settings(TIGHT_CPU_MS))


@pytest.fixture
def hostile(tables_world: Tables, ingress: Ingress) -> tuple[Tables, str]:
    return hostile_company(tables_world, ingress)


def test_a_query_within_the_limits_but_over_the_cpu_budget_is_refused(
    tables_world: Tables, hostile: tuple[Tables, str]
) -> None:
    attacker, wide = hostile
    answer, seconds = timed(lambda: attacker.analytics("query", wide, {"sql": WITHIN_LIMITS}))
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["errorCode"] == "PARSE_ERROR"
    assert body["errors"] == [f"The query is too complex to analyse within {TIGHT_CPU_MS} ms"]
    assert body["hint"]
    assert seconds < 15
    # The company is not locked out: its next query, a small one (well within the budget even on a loaded
    # machine, in the new worker that replaced the one the deadline ended), is analysed.
    fine = attacker.analytics("estimate", wide, {"sql": "SELECT c1 FROM wide"})
    assert fine.status_code == 200, fine.text
    assert fine.json()["referencedTables"] == ["wide"]
