"""The backoff `svc up` restarts a dead child with, and how it names the way the child ended."""

import pytest

from svc.restarts import RestartPolicy, exit_description

pytestmark = pytest.mark.unit


def test_the_delay_doubles_from_half_a_second_up_to_ten() -> None:
    policy = RestartPolicy()
    assert [policy.delay(attempt) for attempt in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert policy.delay(10_000) == 10.0


def test_a_child_that_ran_a_minute_starts_over_at_the_first_attempt() -> None:
    policy = RestartPolicy()
    assert policy.next_attempt(0, ran_seconds=0.2) == 1
    assert policy.next_attempt(4, ran_seconds=3.0) == 5
    assert policy.next_attempt(6, ran_seconds=60.0) == 1
    assert policy.next_attempt(6, ran_seconds=3600.0) == 1


def test_exit_description_names_the_signal_or_the_code() -> None:
    assert exit_description(0) == {"exit_code": 0}
    assert exit_description(3) == {"exit_code": 3}
    assert exit_description(-9) == {"signal": "SIGKILL"}
    assert exit_description(-15) == {"signal": "SIGTERM"}
    assert exit_description(-200) == {"signal": "200"}
