"""``svc up`` restarts the workers after the embedded broker (svc/supervisor.py): the broker starts empty, and
a consumer that lost its group coordinator while the broker was gone could stay wedged. Real child processes
(a sleeping Python), the supervisor's own loop step; no clock is asserted on."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sinks.broker_absence import BrokerAbsence, BrokerAbsenceNotice
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
    found = Supervisor(_Stop(), RestartPolicy(first_seconds=0.01), recycle_grace_seconds=0.5)
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


def test_a_broker_renewed_on_purpose_outlives_its_workers(supervisor: Supervisor) -> None:
    """The workers stop first (a worker of the old broker must not commit its offsets into the new one), the
    broker is killed only once they are all down, then both start again without a crash's backoff."""
    broker = supervisor.start("broker", "broker", sleeper())
    stubborn = supervisor.start("worker-1", "worker", sleeper(ignore_term=True))
    willing = supervisor.start("worker-2", "worker", sleeper())
    old_broker, old_workers = broker.process, {stubborn.process.pid, willing.process.pid}
    ingress = supervisor.start("ingress-1", "ingress", sleeper()).process.pid
    supervisor.renew_broker()

    def step() -> None:
        for child in supervisor.children:
            supervisor._tend(child)
        supervisor._renew_step()

    deadline = time.monotonic() + GUARD_SECONDS
    while willing.process.poll() is None or not willing.held:
        assert time.monotonic() < deadline, "the willing worker did not stop"
        step()
        time.sleep(0.02)
    assert stubborn.process.poll() is None
    assert old_broker.poll() is None, "the broker went before every worker had stopped"
    while not (len(running(supervisor, "worker")) == 2 and running(supervisor, "broker")):
        assert time.monotonic() < deadline, "the supervisor did not get there"
        step()
        time.sleep(0.02)
    assert old_broker.poll() is not None and not running(supervisor, "worker") & old_workers
    assert running(supervisor, "ingress") == {ingress}
    assert all(child.attempt == 0 for child in supervisor.children)
    assert not supervisor.renewing


def test_a_worker_waiting_to_restart_waits_for_the_renewed_broker(supervisor: Supervisor) -> None:
    """A worker in its crash backoff when a renewal begins must not start on the old broker, nor keep the
    renewal waiting for it: it starts once the new broker is up."""
    supervisor.policy = RestartPolicy(first_seconds=5.0)  # its backoff outlasts the renewal below
    broker = supervisor.start("broker", "broker", sleeper())
    crashed = supervisor.start("worker-1", "worker", sleeper())
    old_broker, first = broker.process, crashed.process.pid
    crashed.process.kill()
    crashed.process.wait()
    supervisor._tend(crashed)
    assert crashed.restart_at is not None  # in its backoff
    supervisor.renew_broker()
    deadline = time.monotonic() + GUARD_SECONDS
    while not (running(supervisor, "broker") - {old_broker.pid} and running(supervisor, "worker")):
        assert time.monotonic() < deadline, "the renewal did not finish"
        for child in supervisor.children:
            supervisor._tend(child)
        supervisor._renew_step()
        time.sleep(0.02)
    assert old_broker.poll() is not None
    assert crashed.process.pid != first and not supervisor.renewing


def test_a_renewed_broker_is_started_again_in_the_same_step(supervisor: Supervisor) -> None:
    """The ingress's produce requests wait while the broker is gone: the new one starts in the step that
    killed the old one, not a supervisor poll later."""
    broker = supervisor.start("broker", "broker", sleeper())
    worker = supervisor.start("worker-1", "worker", sleeper())
    old_broker = broker.process
    supervisor.renew_broker()
    deadline = time.monotonic() + GUARD_SECONDS
    while not worker.held:
        assert time.monotonic() < deadline, "the worker did not stop"
        supervisor._tend(worker)
        time.sleep(0.02)
    assert old_broker.poll() is None
    supervisor._renew_step()
    assert old_broker.poll() is not None
    assert broker.process is not old_broker and broker.process.poll() is None and broker.restart_at is None


def test_the_ingress_sees_the_broker_away_from_a_renewal_until_the_new_one_is_up(
    supervisor: Supervisor, tmp_path: Path
) -> None:
    """Away from the moment the workers are asked to stop (what the ingress publishes then is lost with the
    old broker) until the new broker has started, and present again before that start is noted for the
    workers: a delivery left to them was received before it, so their first reconcile hands it over."""
    supervisor.absence = BrokerAbsenceNotice(tmp_path / "absence")
    reader = BrokerAbsence.open(supervisor.absence.path)
    env: dict[str, str] = {}
    supervisor.worker_env = env
    seen_at_launch: list[bool] = []
    launch = sleeper()

    def observed_launch() -> subprocess.Popen[bytes]:
        seen_at_launch.append(reader.away())
        return launch()

    broker = supervisor.start("broker", "broker", observed_launch)
    worker = supervisor.start("worker-1", "worker", sleeper())
    assert not reader.away() and seen_at_launch == [False]
    supervisor.renew_broker()
    assert reader.away()
    deadline = time.monotonic() + GUARD_SECONDS
    while not worker.held:
        assert time.monotonic() < deadline, "the worker did not stop"
        supervisor._tend(worker)
        assert reader.away()
        time.sleep(0.02)
    supervisor._renew_step()
    assert broker.process.poll() is None and seen_at_launch == [False, True]
    assert not reader.away() and "SVC_BROKER_STARTED_AT" in env


def test_a_crashed_broker_is_away_until_it_is_started_again(supervisor: Supervisor, tmp_path: Path) -> None:
    supervisor.policy = RestartPolicy(first_seconds=0.3)  # a backoff to look inside
    supervisor.absence = BrokerAbsenceNotice(tmp_path / "absence")
    reader = BrokerAbsence.open(supervisor.absence.path)
    broker = supervisor.start("broker", "broker", sleeper())
    first = broker.process
    first.kill()
    first.wait()
    supervisor._tend(broker)
    assert broker.restart_at is not None and reader.away()
    tend_until(supervisor, lambda: broker.process is not first and broker.restart_at is None)
    assert not reader.away()
