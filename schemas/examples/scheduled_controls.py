"""Examples of the scheduler controls: a windowed /create and /update, /pause and /run-now."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples import scheduled_events
from schemas.examples.ids import SCHEDULED_EVENT_ID, TOOL_ID

# A campaign: hourly during the 2027 summer sale, then the event removes itself.
CREATE_WINDOWED: JsonDict = {
    "eventName": "Summer sale price sync",
    "description": "Hourly during the sale only; the event deletes itself after the last run",
    "cronExpression": "cron(0 * * * ? *)",
    "timezone": "Europe/Berlin",
    "startDate": "2027-06-21T00:00:00+02:00",
    "endDate": "2027-07-05T23:59:59+02:00",
    "actionAfterCompletion": "DELETE",
    "actionType": "INVOKE_TOOL",
    "toolConfig": {
        "toolExecutionRequest": {"toolId": TOOL_ID, "variables": {"priceList": "summer-sale"}},
        "continueOnError": True,
    },
}

UPDATE_WINDOW: JsonDict = {
    "scheduledEventId": SCHEDULED_EVENT_ID,
    "endDate": "2027-12-31T23:59:59Z",
    "actionAfterCompletion": "NONE",
}


def _and(base: JsonDict, more: JsonDict) -> JsonDict:
    shown = base["examples"]
    if not isinstance(shown, list):
        raise TypeError("examples must be a list")
    return {"examples": [*shown, more]}


# /create and /update show the plain examples and these.
CREATE_EVENT = _and(scheduled_events.CREATE_EVENT, CREATE_WINDOWED)
UPDATE_EVENT = _and(scheduled_events.UPDATE_EVENT, UPDATE_WINDOW)

PAUSE_EVENT: JsonDict = {
    "examples": [
        {"scheduledEventId": SCHEDULED_EVENT_ID, "until": "2027-01-04T08:00:00+01:00"},
        # Without until (or with null): resume now.
        {"scheduledEventId": SCHEDULED_EVENT_ID},
    ]
}

RUN_NOW: JsonDict = {"examples": [{"scheduledEventId": SCHEDULED_EVENT_ID}]}
