"""Examples of catchupWindowSeconds, overlapPolicy and flexibleTimeWindow on /create and /update."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples import scheduled_retries
from schemas.examples.ids import SCHEDULED_EVENT_ID, TOOL_ID

# A minutely sync that should still run if the worker was down for up to ten minutes; fires older than that
# show in /runs as MISSED. A sync still running when the next fire comes is followed by one more at once.
CREATE_CATCHING_UP: JsonDict = {
    "eventName": "Inventory sync",
    "cronExpression": "rate(1 minute)",
    "catchupWindowSeconds": 600,
    "overlapPolicy": "BUFFER_ONE",
    "actionType": "INVOKE_TOOL",
    "toolConfig": {"toolExecutionRequest": {"toolId": TOOL_ID, "variables": {"source": "erp"}}},
}

# Many companies' nightly reports at 02:00 spread over half an hour instead of all at once.
CREATE_SPREAD: JsonDict = {
    "eventName": "Nightly report",
    "cronExpression": "cron(0 2 * * ? *)",
    "timezone": "Europe/Berlin",
    "flexibleTimeWindow": {"mode": "FLEXIBLE", "maximumWindowInMinutes": 30},
    "actionType": "INVOKE_TOOL",
    "toolConfig": {"toolExecutionRequest": {"toolId": TOOL_ID, "variables": {"kind": "nightly"}}},
}

# Never run late: a fire not started on time is recorded MISSED.
UPDATE_CATCHUP: JsonDict = {"scheduledEventId": SCHEDULED_EVENT_ID, "catchupWindowSeconds": 0}


def _and(base: JsonDict, more: JsonDict) -> JsonDict:
    shown = base["examples"]
    if not isinstance(shown, list):
        raise TypeError("examples must be a list")
    return {"examples": [*shown, more]}


# /create and /update show the plain, windowed and retrying examples and these.
CREATE_EVENT = _and(_and(scheduled_retries.CREATE_EVENT, CREATE_CATCHING_UP), CREATE_SPREAD)
UPDATE_EVENT = _and(scheduled_retries.UPDATE_EVENT, UPDATE_CATCHUP)
