"""``svc up`` restarts the workers after the embedded broker crashed (svc/supervisor.py): the broker starts
empty, and a consumer that lost its group coordinator while the broker was gone could stay wedged. Real child
processes (a sleeping Python), the supervisor's own loop step; no clock is asserted on. The planned renewal
stops nothing: tests/e2e/test_supervision.py and tests/integration/test_embedded_broker_renewal.py."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sinks.embedded_broker.generations import Generations, GenerationSignal
from sinks.embedded_broker.supervision import BrokerSupervision
from svc.restarts import RestartPolicy
from svc.supervisor import Supervisor, _Stop

pytestmark = pytest.mark.integration
GUARD_SECONDS = 30.0  # a liveness guard only


def sleeper(ignore_term: bool = False) -> Callable[[], subprocess.Popen[bytes]]:
    code = "import signal, time\n"
    if ignore_term:
        code += "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    code += "print('up', flush=True)\ntime.sleep(600)\n"

    def launch() -> subprocess.Popen[bytes]:
        process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        assert process.stdout is not None and process.stdout.readline() == b"up\n"  # its handler is set
        return process

    return launch


@pytest.fixture
def supervisor() -> Iterator[Supervisor]:
    found = Supervisor(_Stop(), RestartPolicy(first_seconds=0.01), restart_grace_seconds=0.5)
    yield found
    for child in found.children:
        child.process.kill()
        child.process.wait()


def tend_until(supervisor: Supervisor, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + GUARD_SECONDS
    while not done():
        assert time.monotonic() < deadline, "the supervisor did not get there"
        for child in supervisor.children:
            supervisor._tend(child)
        time.sleep(0.02)


def running(supervisor: Supervisor, role: str) -> set[int]:
    return {
        c.process.pid for c in supervisor.of_role(role) if c.process.poll() is None and c.restart_at is None
    }


def test_a_restarted_broker_restarts_every_worker_and_nothing_else(supervisor: Supervisor) -> None:
    broker = supervisor.start("broker", "broker", sleeper())
    workers = {supervisor.start(f"worker-{n}", "worker", sleeper()).process.pid for n in (1, 2)}
    ingress = supervisor.start("ingress-1", "ingress", sleeper()).process.pid
    old_broker = broker.process.pid
    broker.process.kill()
    tend_until(
        supervisor,
        lambda: len(running(supervisor, "worker")) == 2 and not running(supervisor, "worker") & workers,
    )
    assert running(supervisor, "broker") - {old_broker}
    assert running(supervisor, "ingress") == {ingress}
    # Asked to stop, the workers ended on SIGTERM and started again without a crash's backoff.
    assert all(child.attempt == 0 for child in supervisor.of_role("worker"))


def test_a_worker_that_ignores_the_request_is_killed_after_the_grace(supervisor: Supervisor) -> None:
    broker = supervisor.start("broker", "broker", sleeper())
    stubborn = supervisor.start("worker-1", "worker", sleeper(ignore_term=True))
    first = stubborn.process
    broker.process.kill()
    tend_until(supervisor, lambda: first.poll() is not None and bool(running(supervisor, "worker")))
    assert first.returncode == -signal.SIGKILL
    assert running(supervisor, "worker") == {stubborn.process.pid} != {first.pid}


def test_a_worker_that_crashes_restarts_alone(supervisor: Supervisor) -> None:
    supervisor.start("broker", "broker", sleeper())
    crashing = supervisor.start("worker-1", "worker", sleeper())
    other = supervisor.start("worker-2", "worker", sleeper()).process.pid
    broker = running(supervisor, "broker")
    first = crashing.process.pid
    crashing.process.kill()
    tend_until(supervisor, lambda: crashing.process.pid != first and crashing.process.poll() is None)
    assert running(supervisor, "broker") == broker
    assert other in running(supervisor, "worker")


def test_workers_started_after_a_broker_know_when_it_started(supervisor: Supervisor) -> None:
    """What was queued before the broker's start is gone with the old one: the workers started after it get
    the moment (SVC_BROKER_STARTED_AT), so their reconcilers publish it again without the queued grace."""
    env: dict[str, str] = {}
    supervisor.worker_env = env
    broker = supervisor.start("broker", "broker", sleeper())
    supervisor.start("worker-1", "worker", sleeper())
    before = datetime.now(UTC)
    broker.process.kill()
    tend_until(supervisor, lambda: "SVC_BROKER_STARTED_AT" in env)
    assert datetime.fromisoformat(env["SVC_BROKER_STARTED_AT"]) >= before


def test_a_crashed_broker_is_away_until_it_is_started_again(supervisor: Supervisor, tmp_path: Path) -> None:
    supervisor.policy = RestartPolicy(first_seconds=0.3)  # a backoff to look inside
    supervisor.embedded = BrokerSupervision(tmp_path)
    reader = GenerationSignal.open(supervisor.embedded.signal_path)
    broker = supervisor.start("broker", "broker", sleeper())
    first = broker.process
    first.kill()
    first.wait()
    supervisor._tend(broker)
    assert broker.restart_at is not None and reader.away()
    tend_until(supervisor, lambda: broker.process is not first and broker.restart_at is None)
    assert not reader.away()


def test_a_crash_during_a_renewal_leaves_the_producers_generation_only(
    supervisor: Supervisor, tmp_path: Path
) -> None:
    """The new broker has the topics of the generation producers write to; a renewal under way stops,
    since the signal no longer says what it wrote."""
    supervisor.embedded = BrokerSupervision(tmp_path)
    notice = supervisor.embedded.notice
    renewing = Generations(produce=3, read_from=2, read_to=3)
    notice.set(renewing)
    broker = supervisor.start("broker", "broker", sleeper())
    first = broker.process
    first.kill()
    first.wait()
    tend_until(supervisor, lambda: broker.process is not first and broker.restart_at is None)
    assert notice.current == Generations(produce=3, read_from=3, read_to=3)
    assert not notice.replace(renewing, Generations(produce=3, read_from=3, read_to=3))
