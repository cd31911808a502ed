"""Examples of the alerts API's request bodies (docs/webhooks.md, "Alerts")."""

from __future__ import annotations

from typing import Any

from schemas.examples import ids

CREATE_RULE: dict[str, Any] = {
    "examples": [
        {
            "name": "orders failing",
            "condition": {
                "type": "WEBHOOK_FAILURES",
                "webhookId": ids.WEBHOOK_ID,
                "count": 5,
                "withinMinutes": 10,
            },
            "resolveAfterSeconds": 600,
            "notify": ids.TOOL_ID,
        },
        {
            "name": "lookup tool down",
            "condition": {"type": "CIRCUIT_OPEN", "resourceId": ids.TOOL_ID, "forSeconds": 60},
        },
    ]
}
UPDATE_RULE: dict[str, Any] = {"examples": [{"ruleId": ids.ALERT_RULE_ID, "enabled": False}]}
RULE_ID: dict[str, Any] = {"examples": [{"ruleId": ids.ALERT_RULE_ID}]}
ALERTS: dict[str, Any] = {"examples": [{"state": "OPEN", "ruleId": ids.ALERT_RULE_ID, "limit": 50}]}
ALERT_ID: dict[str, Any] = {"examples": [{"alertId": ids.ALERT_ID}]}
REPLAY: dict[str, Any] = {"examples": [{"alertId": ids.ALERT_ID, "dryRun": True}]}
