"""The plan's appended-rows-per-minute limit answers 429 QUOTA, and a refused append stores nothing."""

import asyncio
import time
from pathlib import Path

import pytest

from sinks.db.analytics import tables
from sinks.db.models import TableWrite
from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Ingress, make_settings, migrated
from tests.fixtures.tables import ORDERS


def within_one_minute(margin: float = 15.0) -> None:
    """Return once at least ``margin`` seconds are left of the current minute (a CI run made its first
    append in one minute and its second in the next, which the quota rightly allowed)."""
    left = 60.0 - time.time() % 60.0
    if left < margin:
        time.sleep(left + 0.05)


pytestmark = pytest.mark.integration


def test_append_quota(tmp_path: Path, kafka_bootstrap: str) -> None:
    settings = make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, append_rows_per_minute=150)
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        company = db.create_company()
        server = Ingress(settings)
        server.start()
        try:
            created = server.client.post(
                "/svc_poweruser/analytics/tables/create",
                headers={"Authorization": company.poweruser_key},
                json=ORDERS,
            )
            table_id = created.json()["tableId"]

            def append(count: int, start: int) -> tuple[int, dict[str, object]]:
                answer = server.client.post(
                    "/clients/svcdb/analytics/append-rows",
                    params={"resourceId": table_id},
                    headers={"Authorization": company.client_api_key},
                    json={"tableId": table_id, "rows": [{"order_id": start + i} for i in range(count)]},
                )
                body = answer.json()
                if answer.status_code == 429:  # the wait until the quota's minute ends
                    assert 1 <= int(answer.headers["Retry-After"]) <= 60, answer.headers
                    assert "Retry-After" in body["hint"]
                return answer.status_code, body

            # The quota counts per calendar minute: the three calls must fall in one.
            within_one_minute()
            assert append(100, 0)[0] == 200
            status, body = append(100, 100)
            assert status == 429
            assert body["errorCode"] == "QUOTA"
            assert append(50, 200)[0] == 200  # what is left of the minute is still usable
            with db.sessions() as session:
                stored = session.query(TableWrite).filter_by(table_id=table_id).all()
                assert sorted(w.row_count for w in stored) == [50, 100]
                assert tables.get(session, company.company_id, table_id) is not None
        finally:
            server.stop()
