"""Issue 43, large bodies by reference on S3 (moto's server, reached through a port the test closes): a large
body is kept in the bucket and read back by the history; while S3 cannot be reached a large body is refused
with the trigger's 503 and Retry-After and nothing is recorded, while a small body, which never touches the
store, is still accepted; once S3 is back the same body goes through."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from ingress.errors import STORAGE_RETRY_AFTER_SECONDS
from schemas.settings import Settings
from sinks.db.models import WebhookExecution
from sinks.objectstore import object_store
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.s3 import S3Port
from tests.fixtures.stack import Ingress
from tests.integration import outage_helpers
from tests.integration.outage_helpers import gateway
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import history
from tests.integration.webhooks.test_large_bodies import accepted, fire, large_body, payload_of, webhook

__all__ = ["gateway"]  # a fixture

pytestmark = pytest.mark.integration

SECRET_KEY = "large-bodies-secret-0123456789"
UNREACHABLE = "The object storage is unavailable: the S3 service could not be reached"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with outage_helpers.module_s3("svc-large-bodies-seed", SECRET_KEY) as endpoint:
        yield endpoint


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, gateway: S3Port) -> Settings:
    """Replaces the stack's settings: the object store on S3 (the warehouse stays local)."""
    return outage_helpers.s3_settings(
        tmp_path / "data", kafka_bootstrap, gateway.endpoint, warehouse_on_s3=False
    )


def entries_of(world: World, webhook_id: str) -> int:
    with world.db.sessions() as session:
        query = select(func.count()).where(WebhookExecution.webhook_id == webhook_id)
        return int(session.scalar(query) or 0)


def test_a_large_body_lives_in_s3_and_waits_for_s3_when_it_is_away(
    world: World, ingress: Ingress, handler: RecordingHandler, gateway: S3Port, kafka_settings: Settings
) -> None:
    store = object_store(kafka_settings)
    webhook_id, key = webhook(world, handler)
    body = large_body("S3-1")
    first = accepted(ingress, webhook_id, key, body)
    stored_key = payload_of(world, first).body_key
    assert stored_key is not None and store.get_bytes(stored_key) == body

    gateway.close()
    refused = fire(ingress, webhook_id, key, large_body("S3-2"))
    assert refused.status_code == 503, refused.text
    assert refused.headers.get("Retry-After") == str(STORAGE_RETRY_AFTER_SECONDS)
    answer = refused.json()
    assert answer["success"] is False and answer["webhookId"] == webhook_id
    assert answer["executionId"] is None
    assert answer["message"].startswith(UNREACHABLE) and answer["errors"] == [answer["message"]]
    assert gateway.endpoint not in refused.text and str(kafka_settings.object_store) not in refused.text
    assert entries_of(world, webhook_id) == 1  # nothing recorded
    accepted(ingress, webhook_id, key, b'{"order": {"id": "SMALL"}}')  # never touches the store
    assert entries_of(world, webhook_id) == 2

    gateway.open()
    again = accepted(ingress, webhook_id, key, large_body("S3-2"))
    shown = {e["executionId"]: e["executionDetails"] for e in history(world, webhook_id)["history"]}
    assert shown[first]["requestPayload"] == body.decode()
    assert shown[again]["requestPayload"] == large_body("S3-2").decode()
    assert shown[again]["requestPayloadError"] is None
