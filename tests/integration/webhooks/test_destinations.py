"""Issue 44, destinations: a burst at an endpoint that serves 4 calls at once, with maxConcurrency 4, is
delivered whole without more than 4 calls in flight and without an attempt burned waiting, while another
company's deliveries to a fast endpoint keep their latency; an endpoint that is down for a minute opens its
circuit (the waiting deliveries burn no retries, a probe comes at each interval) and everything is delivered
once it is back; a Retry-After holds every call to its destination back; /destinations/get-all shows it
all."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from schemas.admin import GrantSpec, ResourceSpec
from schemas.enums import AccessLevel
from schemas.settings import Settings
from sinks.db import resources
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.limited_endpoint import LimitedEndpoint, serving
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import Person, World
from tests.integration.webhooks.delivery_helpers import TRIGGER, tool_webhook

pytestmark = pytest.mark.integration

DESTINATIONS = "/svc_poweruser/destinations/get-all"


def limited_tool(
    world: World, url: str, company_id: str | None = None, user: Person | None = None, **limits: Any
) -> str:
    with world.db.sessions.begin() as session:
        created = resources.create_resource(
            session,
            company_id or world.company_id,
            ResourceSpec(type="TOOL", name="limited", endpoint=url, **limits),
        )
        resources.grant(
            session,
            GrantSpec(
                user_id=(user or world.owner).user_id, resource_id=created.resource_id, level=AccessLevel.READ
            ),
        )
    return created.resource_id


def outsider_webhook(world: World, url: str, **limits: Any) -> tuple[str, str]:
    """A webhook of the other company calling a TOOL of its own at ``url``; its id and key."""
    theirs = world.api.ok(world.outsider, "create", {"webhookConfig": {"name": "other"}})["webhook"]
    tool = limited_tool(world, url, company_id=theirs["companyId"], user=world.outsider, **limits)
    config = {
        "name": "other",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool, "variables": {}},
    }
    world.api.ok(world.outsider, "update", {"webhookId": theirs["id"], "webhookConfig": config})
    key = world.api.ok(world.outsider, "refresh-api-key", {"webhookId": theirs["id"]})["apiKey"]
    return str(theirs["id"]), str(key)


def trigger(ingress: Ingress, webhook_id: str, key: str, count: int, tag: str) -> None:
    for n in range(count):
        answer = ingress.client.post(
            TRIGGER,
            params={"resourceId": webhook_id},
            headers={"Authorization": key},
            json={"order": {"id": f"{tag}{n}"}},
        )
        assert answer.status_code == 202, answer.text


def entries(world: World, who: Person, webhook_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    page = 0
    while True:
        answer = world.api.ok(
            who, "get-execution-history", {"webhookId": webhook_id, "size": 100, "page": page}
        )
        found += answer["history"]
        page += 1
        if page >= answer["totalPages"]:
            return found


def _total(world: World, who: Person, webhook_id: str, status: str | None = None) -> int:
    body: dict[str, Any] = {"webhookId": webhook_id, "size": 1}
    if status is not None:
        body["status"] = status
    return int(world.api.ok(who, "get-execution-history", body)["totalElements"])


def settled(
    world: World, who: Person, webhook_id: str, count: int, timeout: float = 180
) -> list[dict[str, Any]]:
    """Every entry, once ``count`` are there and none is still QUEUED or PROCESSING: the counts are polled
    (three small calls), the entries read once, so a long burst stays within the poweruser rate limit."""
    deadline = time.monotonic() + timeout
    while True:
        total = _total(world, who, webhook_id)
        unsettled = sum(_total(world, who, webhook_id, status) for status in ("QUEUED", "PROCESSING"))
        if total >= count and unsettled == 0:
            return entries(world, who, webhook_id)
        assert time.monotonic() < deadline, f"{total - unsettled} of {count} settled"
        time.sleep(0.5)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def waited(found: list[dict[str, Any]]) -> list[float]:
    """Seconds from each delivery's acceptance to its (last) attempt's start."""
    return [(at(e["startedAt"]) - at(e["queuedAt"])).total_seconds() for e in found]


@pytest.fixture
def endpoint() -> Iterator[LimitedEndpoint]:
    with serving(LimitedEndpoint(slots=4, call_seconds=0.05)) as served:
        yield served


def test_a_burst_at_a_small_endpoint_keeps_to_its_limit_and_another_company_is_not_slowed(
    world: World, ingress: Ingress, worker: Worker, endpoint: LimitedEndpoint, handler: RecordingHandler
) -> None:
    slow_tool = limited_tool(world, endpoint.url, max_concurrency=4)
    slow_hook, slow_key = tool_webhook(world, slow_tool)
    fast_hook, fast_key = outsider_webhook(world, handler.url)

    burst = 2_000
    trigger(ingress, slow_hook, slow_key, burst, "s")
    # Meanwhile the other company's deliveries, one every 50 ms.
    for n in range(40):
        trigger(ingress, fast_hook, fast_key, 1, f"f{n}")
        time.sleep(0.05)
    listed = ingress.client.post(DESTINATIONS, headers={"Authorization": world.admin.key}, json={}).json()
    ours = {d["resourceId"]: d for d in listed["destinations"]}[slow_tool]
    assert ours["maxConcurrency"] == 4 and ours["state"] == "CLOSED"
    assert ours["inFlight"] <= 4

    fast = settled(world, world.outsider, fast_hook, 40)
    done = settled(world, world.owner, slow_hook, burst, timeout=300)
    # Not slowed: the other company's deliveries start about as soon as a lone delivery would (p50 under
    # 250 ms, several times a lone delivery's), while the burst's own deliveries wait seconds for their
    # destination.
    fast_wait = statistics.median(waited(fast))
    assert fast_wait < 0.25, waited(fast)
    assert fast_wait * 4 < statistics.median(waited(done)), (waited(fast), statistics.median(waited(done)))

    assert len(done) == burst  # one attempt each: waiting burned none
    assert {(e["status"], e["attemptNumber"]) for e in done} == {("SUCCESS", 1)}
    assert endpoint.most_in_flight <= 4
    assert len(endpoint.succeeded()) == burst
    assert len({call["executionId"] for call in endpoint.succeeded()}) == burst
    assert any(e["waitedMs"] for e in done)  # most of the burst waited for the destination


# The scenario: the endpoint down for a minute, a probe every PROBE_SECONDS meanwhile.
DOWN_SECONDS = 60
PROBE_SECONDS = 5


class FastCircuitWorker(Worker):
    def env(self) -> dict[str, str]:
        return {
            **super().env(),
            "SVC_CIRCUIT_FAILURES": "3",
            "SVC_CIRCUIT_PROBE_SECONDS": str(PROBE_SECONDS),
        }


def test_an_endpoint_down_opens_its_circuit_and_every_delivery_succeeds_once_it_is_back(
    world: World, ingress: Ingress, kafka_settings: Settings, tmp_path: Path
) -> None:
    endpoint = LimitedEndpoint(slots=8, call_seconds=0.01)
    tool = limited_tool(world, endpoint.url, max_concurrency=8)
    hook, key = tool_webhook(
        # A probe is an attempt of the delivery it starts: retries that come back after the probe interval
        # wait behind the older waiting deliveries, so the probes go round them instead of exhausting one.
        world,
        tool,
        executionSettings={"timeoutSeconds": 2, "maxRetries": 3, "retryDelaySeconds": 3},
    )
    worker = FastCircuitWorker(kafka_settings, tmp_path / "worker.log")
    worker.start()
    try:
        worker.wait_assigned()
        down_until = time.monotonic() + DOWN_SECONDS
        trigger(ingress, hook, key, 60, "d")  # the endpoint is down: nothing listens on its port
        deadline = time.monotonic() + 60
        while True:
            listed = ingress.client.post(DESTINATIONS, headers={"Authorization": world.admin.key}, json={})
            state = {d["resourceId"]: d for d in listed.json()["destinations"]}[tool]
            if state["state"] in ("OPEN", "HALF_OPEN") and state["waiting"] > 0:
                break
            assert time.monotonic() < deadline, state
            time.sleep(0.2)
        assert state["lastError"] and "could not be reached" in state["lastError"]
        time.sleep(max(0.0, down_until - time.monotonic()))  # the rest of the minute, still down
        failed_attempts = [e for e in entries(world, world.owner, hook) if e["status"] == "FAILED"]
        # Only the attempts that opened the circuit (8 in flight at once, a second 8 claimed before the open
        # state was written on a slow machine) and one probe per interval failed, not 60 x 4 attempts: the
        # waiting deliveries burned no retries.
        probes_at_most = DOWN_SECONDS // PROBE_SECONDS + 2
        assert len(failed_attempts) <= 2 * 8 + probes_at_most, len(failed_attempts)
        starts = sorted(at(e["startedAt"]) for e in failed_attempts)
        opened = [b for a, b in itertools.pairwise(starts) if (b - a).total_seconds() > 0.5]
        # The probes come at the interval: apart by at least it (a sweep's round early at most), and they
        # keep coming while the endpoint is down.
        gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(opened)]
        assert gaps and min(gaps) >= PROBE_SECONDS - 0.5, gaps
        assert len(opened) >= DOWN_SECONDS // PROBE_SECONDS // 2, (len(opened), gaps)
        with serving(endpoint):
            done = settled(world, world.owner, hook, 60)
            successes = {e["executionId"] for e in done if e["status"] == "SUCCESS"}
            deadline = time.monotonic() + 60
            while len(successes) < 60:
                assert time.monotonic() < deadline, len(successes)
                time.sleep(0.5)
                successes = {
                    e["executionId"] for e in entries(world, world.owner, hook) if e["status"] == "SUCCESS"
                }
            assert len(endpoint.succeeded()) == 60
        listed = ingress.client.post(DESTINATIONS, headers={"Authorization": world.admin.key}, json={})
        assert {d["resourceId"]: d for d in listed.json()["destinations"]}[tool]["state"] == "CLOSED"
    finally:
        worker.stop()


def test_a_retry_after_holds_back_every_call_to_its_destination(
    world: World, ingress: Ingress, worker: Worker
) -> None:
    endpoint = LimitedEndpoint(slots=4, call_seconds=0.01, refuse_next=1, refuse_retry_after="3")
    with serving(endpoint):
        tool = limited_tool(world, endpoint.url, max_concurrency=1)
        hook, key = tool_webhook(
            world, tool, executionSettings={"timeoutSeconds": 2, "maxRetries": 1, "retryDelaySeconds": 0}
        )
        trigger(ingress, hook, key, 1, "first")
        deadline = time.monotonic() + 30
        while not endpoint.calls:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        refused_at = endpoint.calls[0]["at"]
        trigger(ingress, hook, key, 5, "next")
        done = settled(world, world.owner, hook, 7)
        assert len(endpoint.succeeded()) == 6
        later = [call["at"] for call in endpoint.calls[1:]]
        assert min(later) - refused_at >= 2.9, later  # nothing called it within its Retry-After
        assert {e["status"] for e in done if e["attemptNumber"] == 2} == {"SUCCESS"}


def test_only_company_admins_see_the_destinations(world: World, ingress: Ingress) -> None:
    limited_tool(world, "http://127.0.0.1:9/x", max_concurrency=3, max_per_second=2.5)
    answer = ingress.client.post(DESTINATIONS, headers={"Authorization": world.admin.key}, json={})
    assert answer.status_code == 200
    listed = answer.json()["destinations"]
    limited = [d for d in listed if d["name"] == "limited"]
    assert limited and limited[0]["maxConcurrency"] == 3 and limited[0]["maxPerSecond"] == 2.5
    assert limited[0]["state"] == "CLOSED" and limited[0]["waiting"] == 0 and limited[0]["inFlight"] == 0
    other = ingress.client.post(DESTINATIONS, headers={"Authorization": world.outsider.key}, json={}).json()
    assert all(d["name"] != "limited" for d in other["destinations"])
    refused = ingress.client.post(DESTINATIONS, headers={"Authorization": world.alice.key}, json={})
    assert refused.status_code == 403 and refused.json()["errors"]


class SmallPoolWorker(Worker):
    def env(self) -> dict[str, str]:
        return {**super().env(), "SVC_WORKER_CONCURRENCY": "8"}


def test_a_company_busy_at_many_destinations_leaves_another_its_share_of_the_worker(
    world: World, ingress: Ingress, kafka_settings: Settings, tmp_path: Path
) -> None:
    # Company A: four destinations of 4 calls each (16 > the worker's 8 slots), 60 deliveries to each.
    busy_endpoint = LimitedEndpoint(slots=16, call_seconds=0.3)
    other_endpoint = LimitedEndpoint(slots=4, call_seconds=0.3)
    worker = SmallPoolWorker(kafka_settings, tmp_path / "worker.log")
    worker.start()
    try:
        worker.wait_assigned()
        with serving(busy_endpoint), serving(other_endpoint):
            hooks = []
            for n in range(4):
                tool = limited_tool(world, busy_endpoint.url, max_concurrency=4)
                hooks.append(tool_webhook(world, tool, name=f"busy-{n}"))
            other_hook, other_key = outsider_webhook(world, other_endpoint.url, max_concurrency=4)
            for n in range(60):
                for index, (hook, key) in enumerate(hooks):
                    trigger(ingress, hook, key, 1, f"a{index}-{n}")
            time.sleep(1)  # A's calls hold every slot of the worker, and its other deliveries wait
            for n in range(10):
                trigger(ingress, other_hook, other_key, 1, f"b{n}")
                time.sleep(0.1)

            other = settled(world, world.outsider, other_hook, 10)
            busy = [entry for hook, _ in hooks for entry in settled(world, world.owner, hook, 60)]
    finally:
        worker.stop()
    # Without shares, B's deliveries would wait for a whole destination of A to drain (15 calls of 0.3 s).
    other_wait = statistics.median(waited(other))
    assert other_wait < 3.0, waited(other)
    assert other_wait * 2 < statistics.median(waited(busy)), (waited(other), statistics.median(waited(busy)))
    assert {(e["status"], e["attemptNumber"]) for e in busy + other} == {("SUCCESS", 1)}
    assert len(busy) == 240 and len({call["executionId"] for call in busy_endpoint.succeeded()}) == 240
    assert busy_endpoint.most_in_flight <= 8
