"""Two workers share webhook deliveries; each renews the leases of the attempts it acts on (issue 21).

An attempt that runs longer than the old rule allowed (its webhook's timeoutSeconds, as the reconciler reads
it now, plus SVC_PROCESSING_GRACE_SECONDS) while its worker lives is not failed and run again: each delivery
reaches the handler once. An attempt whose worker is killed (SIGKILL) mid-call is run again once its lease
has run out.

The module's tests share one stack (database, ingress, the pair of workers): forming the workers' group is
most of a test's set-up. Each test has its own company, handler and webhook; the kill test runs last, and a
test that finds a worker dead starts it again."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from sinks.db.models import WebhookExecution
from streams.webhooks.deliveries import LOST_WORKER
from tests.fixtures import module_stack
from tests.fixtures.stack import Db
from tests.fixtures.two_workers import wait_until
from tests.integration import lease_helpers
from tests.integration.lease_helpers import CallerHandler, Pair, caller_handler, histogram, two_workers
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler

pytestmark = pytest.mark.integration
__all__ = ["caller_handler"]  # a fixture

LEASE = "3"  # renewed every second
MAX_DELIVERIES = 16


# The module's one stack (tests/fixtures/module_stack.py) and its pair of workers on PostgreSQL.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES
kafka_settings, pair = lease_helpers.PAIR_FIXTURES


@pytest.fixture(scope="module")
def pair_env() -> dict[str, str]:
    return {"SVC_LEASE_SECONDS": LEASE}


def config(tool_id: str, timeout_seconds: int) -> dict[str, Any]:
    return {
        "name": "orders",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool_id},
        "executionSettings": {"timeoutSeconds": timeout_seconds, "maxRetries": 2, "retryDelaySeconds": 0},
    }


def webhook(world: World, tool_id: str, timeout_seconds: int) -> tuple[str, str]:
    created = world.api.create(world.owner, {"name": "orders"})
    webhook_id = created["webhook"]["id"]
    body = {"webhookId": webhook_id, "webhookConfig": config(tool_id, timeout_seconds)}
    world.api.ok(world.owner, "update", body)
    return webhook_id, str(created["apiKey"])


def deliver_until_both_act(
    client: httpx.Client, handler: CallerHandler, webhook_id: str, key: str, at_least: int
) -> list[str]:
    """Deliveries one at a time, each sent once the last one reached the handler, until both workers have
    called it (the delivery topic's partitions are shared between them) and ``at_least`` were sent."""
    sent: list[str] = []
    while len(sent) < at_least or len({a["worker"] for a in handler.arrivals}) < 2:
        assert len(sent) < MAX_DELIVERIES, f"one worker took every delivery: {handler.callers()}"
        answer = client.post(
            TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={"n": len(sent)}
        )
        assert answer.status_code == 202, answer.text
        sent.append(answer.json()["executionId"])
        wait_until(lambda: len(handler.arrivals) >= len(sent), 30, "the delivery did not reach the handler")
    return sent


def attempts(db: Db, webhook_id: str) -> dict[str, dict[int, WebhookExecution]]:
    """Execution id -> attempt number -> its history entry."""
    found: dict[str, dict[int, WebhookExecution]] = {}
    with db.sessions() as session:
        for entry in session.scalars(
            select(WebhookExecution).where(WebhookExecution.webhook_id == webhook_id)
        ):
            found.setdefault(entry.execution_id, {})[entry.attempt_number] = entry
    return found


def settled(db: Db, webhook_id: str, executions: list[str]) -> bool:
    found = attempts(db, webhook_id)
    if set(found) != set(executions):
        return False
    return all(
        entry.status in ("SUCCESS", "FAILED") for tried in found.values() for entry in tried.values()
    ) and all(tried[max(tried)].status == "SUCCESS" or max(tried) == 3 for tried in found.values())


def figures(handler: CallerHandler, found: dict[str, dict[int, WebhookExecution]]) -> dict[str, Any]:
    return {
        "calls per delivery": histogram(handler.calls_per_item()),
        "deliveries per worker": dict(Counter(w for ws in handler.callers().values() for w in ws)),
        "attempt, status": dict(Counter((n, e.status) for tried in found.values() for n, e in tried.items())),
    }


def test_an_attempt_running_past_the_old_rule_is_not_run_again_by_the_other_worker(
    world: World, caller_handler: CallerHandler, pair: Pair
) -> None:
    handler = caller_handler
    handler.delay = 8.0  # within the attempts' 30 s timeout
    tool_id = register_handler(world, handler)
    webhook_id, key = webhook(world, tool_id, timeout_seconds=30)
    two_workers(pair, handler)
    sent = deliver_until_both_act(world.api.client, handler, webhook_id, key, at_least=4)
    # While the calls are in flight the webhook's timeout is lowered to 1 s: the old rule, which read it
    # now, took every attempt older than 2 s for one whose worker had died. The attempts in flight keep
    # the timeout they started with.
    world.api.ok(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config(tool_id, 1)})
    wait_until(lambda: settled(world.db, webhook_id, sent), 90, "not every delivery ended")
    found = attempts(world.db, webhook_id)
    seen = figures(handler, found)
    print(f"attempts past the old rule, {len(sent)} deliveries on two workers: {seen}")
    assert set(handler.calls_per_item().values()) == {1}, seen
    assert {(n, e.status) for tried in found.values() for n, e in tried.items()} == {(1, "SUCCESS")}, seen
    assert set(seen["deliveries per worker"]) == {"first", "second"}, seen


def test_an_attempt_whose_worker_is_killed_mid_call_is_run_again_once_its_lease_ran_out(
    world: World, caller_handler: CallerHandler, pair: Pair
) -> None:
    handler = caller_handler
    handler.delay = 5.0  # within the 8 s timeout: the kill lands mid-call
    tool_id = register_handler(world, handler)
    webhook_id, key = webhook(world, tool_id, timeout_seconds=8)
    first, second = two_workers(pair, handler)
    sent = deliver_until_both_act(world.api.client, handler, webhook_id, key, at_least=2)
    victim_name = handler.arrivals[-1]["worker"]
    assert victim_name in ("first", "second"), handler.arrivals  # the calling socket was found
    victim, survivor = (first, second) if victim_name == "first" else (second, first)
    killed_at = time.time()
    victim.kill()
    at_kill = attempts(world.db, webhook_id)
    held = {
        execution
        for execution, tried in at_kill.items()
        if tried[1].status == "PROCESSING"
        and handler.callers()[execution] == {victim_name}
        and execution in handler.unanswered_at(killed_at)
    }
    assert held, figures(handler, at_kill)
    assert survivor.process is not None and survivor.process.poll() is None, "the survivor died"
    wait_until(lambda: settled(world.db, webhook_id, sent), 90, "not every delivery ended")
    found = attempts(world.db, webhook_id)
    seen = figures(handler, found)
    print(f"killed mid-call, {len(sent)} deliveries, {len(held)} held by the killed worker: {seen}")
    calls = handler.calls_per_item()
    assert {execution: calls[execution] for execution in held} == dict.fromkeys(held, 2), seen
    assert all(calls[execution] == 1 for execution in sent if execution not in held), seen
    for execution, tried in found.items():
        if execution not in held:
            assert {n: e.status for n, e in tried.items()} == {1: "SUCCESS"}, seen
            continue
        assert {n: e.status for n, e in tried.items()} == {1: "FAILED", 2: "SUCCESS"}, seen
        assert tried[1].error_message == LOST_WORKER
        # The next attempt started only after the killed worker's lease on the first had run out.
        lease_until, started = at_kill[execution][1].lease_until, tried[2].started_at
        assert lease_until is not None and started is not None and started > lease_until
