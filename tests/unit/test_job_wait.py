"""How often a waiting /query or /job-status call looks at its job."""

from __future__ import annotations

import pytest

from ingress.analytics.job_views import poll_pause


def test_a_quick_query_is_looked_at_every_2_ms() -> None:
    assert poll_pause(0.0) == poll_pause(0.04) == 0.002


def test_a_longer_query_is_looked_at_every_twentieth_of_its_wait_up_to_50_ms() -> None:
    assert poll_pause(0.2) == pytest.approx(0.01)
    assert poll_pause(0.6) == pytest.approx(0.03)
    assert poll_pause(1.0) == pytest.approx(0.05)
    assert poll_pause(60.0) == 0.05


def test_half_a_second_of_waiting_takes_some_70_looks() -> None:
    waited, looks = 0.0, 0
    while waited < 0.5:
        waited += poll_pause(waited)
        looks += 1
    assert 60 <= looks <= 80
