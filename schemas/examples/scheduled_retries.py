"""Examples of retryPolicy and deadLetterConfig on /create and /update."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples import scheduled_controls
from schemas.examples.ids import SCHEDULED_EVENT_ID, TOOL_ID

# A nightly export whose endpoint is sometimes briefly down: up to 5 retries within the hour after the
# scheduled time; a run that still fails is published to svc.scheduled.dead-letter.
CREATE_RETRYING: JsonDict = {
    "eventName": "Nightly export",
    "cronExpression": "cron(0 2 * * ? *)",
    "timezone": "Europe/Berlin",
    "retryPolicy": {"maximumRetryAttempts": 5, "maximumEventAgeInSeconds": 3600},
    "deadLetterConfig": {"enabled": True},
    "actionType": "INVOKE_TOOL",
    "toolConfig": {"toolExecutionRequest": {"toolId": TOOL_ID, "variables": {"target": "warehouse"}}},
}

UPDATE_RETRIES: JsonDict = {
    "scheduledEventId": SCHEDULED_EVENT_ID,
    "retryPolicy": {"maximumRetryAttempts": 0},
    "deadLetterConfig": {"enabled": False},
}


def _and(base: JsonDict, more: JsonDict) -> JsonDict:
    shown = base["examples"]
    if not isinstance(shown, list):
        raise TypeError("examples must be a list")
    return {"examples": [*shown, more]}


# /create and /update show the plain and windowed examples and these.
CREATE_EVENT = _and(scheduled_controls.CREATE_EVENT, CREATE_RETRYING)
UPDATE_EVENT = _and(scheduled_controls.UPDATE_EVENT, UPDATE_RETRIES)
