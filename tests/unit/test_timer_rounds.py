"""A worker timer's round that meets an unreachable database or message queue ends quietly (the next round
tries again) instead of crashing the Faust app; anything else still raises."""

import pytest

from sinks.db.availability import DatabaseUnreachable
from sinks.exceptions import BrokerUnavailable
from streams.runtime import survive_outage

pytestmark = pytest.mark.unit


async def _raising(exc: Exception) -> None:
    raise exc


@pytest.mark.parametrize(
    "exc",
    [
        BrokerUnavailable("the message queue did not acknowledge the record: UnknownError"),
        DatabaseUnreachable("the metadata database was unreachable a moment ago"),
    ],
)
async def test_an_outage_ends_the_round_quietly(exc: Exception, caplog: pytest.LogCaptureFixture) -> None:
    await survive_outage(lambda: _raising(exc), "dispatch due attempts")
    assert "the next round tries again" in caplog.text


async def test_any_other_error_still_raises() -> None:
    with pytest.raises(ValueError, match="a bug"):
        await survive_outage(lambda: _raising(ValueError("a bug")), "dispatch due attempts")
