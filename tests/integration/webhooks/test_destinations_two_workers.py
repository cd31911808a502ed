"""Issue 44: a destination's maxConcurrency holds across two worker processes (on PostgreSQL, where several
workers run): a burst shared by both never has more calls in flight at the endpoint than the limit, and no
attempt is burned waiting."""

from __future__ import annotations

import pytest

from tests.fixtures import module_stack
from tests.fixtures.limited_endpoint import LimitedEndpoint, serving
from tests.fixtures.stack import Ingress
from tests.fixtures.two_workers import both_running
from tests.integration import lease_helpers
from tests.integration.lease_helpers import Pair
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import tool_webhook
from tests.integration.webhooks.test_destinations import limited_tool, settled, trigger

pytestmark = pytest.mark.integration

stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES
kafka_settings, pair = lease_helpers.PAIR_FIXTURES


@pytest.fixture(scope="module")
def pair_env() -> dict[str, str]:
    return {}


def test_the_limit_holds_across_two_workers(world: World, ingress: Ingress, pair: Pair) -> None:
    both_running(*pair)
    with serving(LimitedEndpoint(slots=8, call_seconds=0.05)) as endpoint:
        tool = limited_tool(world, endpoint.url, max_concurrency=3)
        hook, key = tool_webhook(world, tool)
        trigger(ingress, hook, key, 300, "p")
        done = settled(world, world.owner, hook, 300)
    failed = [entry["executionDetails"]["errorMessage"] for entry in done if entry["status"] == "FAILED"]
    assert {(entry["status"], entry["attemptNumber"]) for entry in done} == {("SUCCESS", 1)}, failed
    assert len(done) == 300
    assert endpoint.most_in_flight <= 3
    assert len(endpoint.succeeded()) == 300
