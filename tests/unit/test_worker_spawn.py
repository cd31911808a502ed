"""`svc up` gives each worker its own metrics port, and reads the workers' environment at each start: a broker
restart adds its start time to it, and a worker restarted afterwards must see it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from svc import children, supervisor

pytestmark = pytest.mark.unit


def test_each_start_reads_the_shared_environment_and_adds_the_workers_own_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[dict[str, str]] = []

    def spawn(command: list[str], *, env: Mapping[str, str], niceness: int, **_: Any) -> Any:
        started.append(dict(env))
        return None  # no child is started

    monkeypatch.setattr(children, "spawn", spawn)
    shared = {"SVC_DATA_DIR": "/d"}
    supervisor._spawn_worker(["svc", "worker"], shared, 9565, 0)
    shared["SVC_BROKER_STARTED_AT"] = "2026-12-02T17:00:00+00:00"
    supervisor._spawn_worker(["svc", "worker"], shared, 9565, 0)
    assert started[0] == {"SVC_DATA_DIR": "/d", "SVC_WORKER_METRICS_PORT": "9565"}
    assert started[1]["SVC_BROKER_STARTED_AT"] == "2026-12-02T17:00:00+00:00"
    assert "SVC_WORKER_METRICS_PORT" not in shared
