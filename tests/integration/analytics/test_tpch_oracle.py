"""The 22 TPC-H queries through /query agree with DuckDB running them on the same data.

The eight tables are created through the table-admin API and loaded (scale factor 0.01) straight into
their Iceberg tables with the service's writer; ``lineitem`` and ``orders`` are partitioned by month. The
expected answer comes from a plain DuckDB connection over the very Arrow tables that were loaded, rendered
by the service's own renderer, so any difference is the query path's: the SQL front's translation and
rewrite, the reads of the Iceberg snapshots, the result storage and paging.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb
import pytest

from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Ingress, make_settings, migrated
from tests.fixtures.worker import Worker
from tests.tpch import data
from tests.tpch.oracle import (
    QUERY_NUMBERS,
    differences,
    duckdb_on,
    expected_result,
    order_positions,
    result_of_json,
    trino_sql,
)
from tests.tpch.service import AnalyticsClient, create_tables

pytestmark = pytest.mark.integration

SCALE_FACTOR = 0.01


@dataclass
class TpchService:
    analytics: AnalyticsClient
    oracle: duckdb.DuckDBPyConnection


@pytest.fixture(scope="module")
def tpch(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TpchService]:
    """One stack (ingress + worker) for the module, its tables loaded once; the 22 queries only read."""
    folder = tmp_path_factory.mktemp("tpch")
    settings = make_settings(folder / "data", kafka_bootstrap=kafka_bootstrap)
    with migrated(settings) as db:
        asyncio.run(ensure_topics(settings))
        ingress = Ingress(settings)
        ingress.start()
        worker = Worker(settings, folder / "worker.log")
        worker.start()
        try:
            company = db.create_company("TPC-H", "admin@tpch.test")
            requests = {name: data.create_request(name) for name in data.TABLE_NAMES}
            table_ids = create_tables(ingress.client, company.poweruser_key, requests)
            generated = data.generate(SCALE_FACTOR)
            data.load(ingress.app.state.catalog, company.company_id, table_ids, generated)
            analytics = AnalyticsClient(ingress.client, company.client_api_key, table_ids["lineitem"])
            with duckdb_on(generated) as oracle:
                yield TpchService(analytics, oracle)
        finally:
            worker.stop()
            ingress.stop()


@pytest.mark.parametrize("number", QUERY_NUMBERS)
def test_tpch_query_through_the_service_matches_duckdb(tpch: TpchService, number: int) -> None:
    expected = expected_result(tpch.oracle, number)
    answer = tpch.analytics.query(trino_sql(number))
    assert answer.truncated is False
    assert answer.total_rows == len(expected.rows)
    actual = result_of_json(answer.columns, answer.rows)
    assert differences(expected, actual, order_positions(number)) == []
