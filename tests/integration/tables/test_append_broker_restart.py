"""Rows accepted before the in-memory broker restarts are still committed: the sweeper publishes again."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sinks.duckdb_engine import connect
from sinks.embedded_broker import process as broker
from sinks.iceberg import catalog as iceberg
from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Ingress, make_settings, migrated
from tests.fixtures.tables import ORDERS
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration


def test_appends_survive_a_broker_restart(tmp_path: Path) -> None:
    port = broker.free_port()
    bootstrap = f"127.0.0.1:{port}"
    tansu = broker.start_tansu(port, tmp_path / "broker.log")
    settings = make_settings(tmp_path / "data", kafka_bootstrap=bootstrap)
    worker = Worker(settings, tmp_path / "worker.log")
    try:
        broker.wait_reachable(bootstrap, 30, tansu)
        asyncio.run(ensure_topics(settings))
        with migrated(settings) as db:
            company = db.create_company()
            ingress = Ingress(settings)
            ingress.start()
            try:
                headers = {"Authorization": company.poweruser_key}
                table_id = ingress.client.post(
                    "/svc_poweruser/analytics/tables/create", headers=headers, json=ORDERS
                ).json()["tableId"]
                for call in range(5):
                    rows = [{"order_id": call * 10 + i} for i in range(10)]
                    answer = ingress.client.post(
                        "/clients/svcdb/analytics/append-rows",
                        params={"resourceId": table_id},
                        headers={"Authorization": company.client_api_key},
                        json={"tableId": table_id, "rows": rows},
                    )
                    assert answer.json()["accepted"] == 10
                # No worker has read the records; the broker loses them all.
                tansu.kill()
                tansu.wait()
                tansu = broker.start_tansu(port, tmp_path / "broker2.log")
                broker.wait_reachable(bootstrap, 30, tansu)
                asyncio.run(ensure_topics(settings))
                worker.start()
                catalog = ingress.app.state.catalog
                deadline = time.monotonic() + 90
                ids: list[int] = []
                while time.monotonic() < deadline and len(ids) < 50:
                    handle = iceberg.load_table(catalog, company.company_id, table_id)
                    if handle.current_snapshot() is not None:
                        with connect() as duck:
                            scan = duck.execute(
                                "SELECT order_id FROM iceberg_scan(?)", [handle.metadata_location]
                            )
                            ids = [row[0] for row in scan.fetchall()]
                    time.sleep(0.3)
                assert sorted(ids) == list(range(50))
            finally:
                ingress.stop()
    finally:
        worker.stop()
        tansu.kill()
        tansu.wait()


def test_work_committed_while_the_broker_is_down_is_answered_and_done_once(tmp_path: Path) -> None:
    """An append and a query committed to the database while the broker does not answer are not refused with
    503 (a retry would append the rows twice): the caller gets its normal answer, and once a broker and a
    worker are back the reconcilers hand the work over, and it is done exactly once."""
    port = broker.free_port()
    bootstrap = f"127.0.0.1:{port}"
    tansu = broker.start_tansu(port, tmp_path / "broker.log")
    settings = make_settings(tmp_path / "data", kafka_bootstrap=bootstrap, queued_grace_seconds=1.0)
    worker = Worker(settings, tmp_path / "worker.log")
    try:
        broker.wait_reachable(bootstrap, 30, tansu)
        asyncio.run(ensure_topics(settings))
        with migrated(settings) as db:
            company = db.create_company()
            ingress = Ingress(settings)
            ingress.start()
            try:
                power = {"Authorization": company.poweruser_key}
                client = {"Authorization": company.client_api_key}
                table_id = ingress.client.post(
                    "/svc_poweruser/analytics/tables/create", headers=power, json=ORDERS
                ).json()["tableId"]
                tansu.kill()
                tansu.wait()
                params = {"resourceId": table_id}
                rows = [{"order_id": i} for i in range(10)]
                # Both at once: each answers only once its publish has given up (the ingress waits 10 s for
                # an acknowledgement), and the two waits need not add up.
                with ThreadPoolExecutor(2) as calls:
                    appending = calls.submit(
                        ingress.client.post,
                        "/clients/svcdb/analytics/append-rows",
                        params=params,
                        headers=client,
                        json={"tableId": table_id, "rows": rows},
                    )
                    querying = calls.submit(
                        ingress.client.post,
                        "/clients/svcdb/analytics/query",
                        params=params,
                        headers=client,
                        json={"tableId": table_id, "sql": "SELECT count(*) AS n FROM orders"},
                    )
                    appended, queried = appending.result(), querying.result()
                assert appended.status_code == 200, appended.text
                assert appended.json()["accepted"] == 10
                assert queried.status_code == 200, queried.text
                assert queried.json()["state"] == "QUEUED"
                job_id = queried.json()["jobId"]

                tansu = broker.start_tansu(port, tmp_path / "broker2.log")
                broker.wait_reachable(bootstrap, 30, tansu)
                asyncio.run(ensure_topics(settings))
                worker.start()
                status: dict[str, object] = {}
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline and status.get("state") not in {"SUCCEEDED", "FAILED"}:
                    status = ingress.client.post(
                        "/clients/svcdb/analytics/job-status",
                        params=params,
                        headers=client,
                        json={"tableId": table_id, "jobId": job_id, "waitMs": 2000},
                    ).json()
                assert status.get("state") == "SUCCEEDED", status
                catalog = ingress.app.state.catalog
                ids: list[int] = []
                while time.monotonic() < deadline and len(ids) < 10:
                    handle = iceberg.load_table(catalog, company.company_id, table_id)
                    if handle.current_snapshot() is not None:
                        with connect() as duck:
                            scan = duck.execute(
                                "SELECT order_id FROM iceberg_scan(?)", [handle.metadata_location]
                            )
                            ids = [row[0] for row in scan.fetchall()]
                    time.sleep(0.3)
                time.sleep(2)  # a second hand-over would land by now (grace 1 s)
                handle = iceberg.load_table(catalog, company.company_id, table_id)
                with connect() as duck:
                    scan = duck.execute("SELECT order_id FROM iceberg_scan(?)", [handle.metadata_location])
                    assert sorted(row[0] for row in scan.fetchall()) == list(range(10))
            finally:
                ingress.stop()
    finally:
        worker.stop()
        tansu.kill()
        tansu.wait()
