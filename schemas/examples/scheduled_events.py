"""Examples of the scheduled-events client requests (``/clients/scheduled-events/...``)."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples.ids import AGENT_ID, CUSTOMERS_TABLE_ID, SCHEDULED_EVENT_ID, TOOL_ID

_INVENTORY_SYNC: JsonDict = {
    "toolExecutionRequest": {
        "toolId": TOOL_ID,
        "variables": {"warehouse": "berlin-1", "fullSync": "false"},
        "environmentVariables": {"LOG_LEVEL": "info"},
    },
    "continueOnError": True,
    "description": "Pulls stock levels from the warehouse system",
}

CREATE_EVENT: JsonDict = {
    "examples": [
        {
            "eventName": "Inventory sync",
            "description": "Keeps the shop's stock levels within 15 minutes of the warehouse",
            "scheduleSpec": {"pattern": "EVERY", "every": {"value": 15, "unit": "MINUTES"}},
            "actionType": "INVOKE_TOOL",
            "toolConfig": _INVENTORY_SYNC,
        },
        {
            "eventName": "Weekly sales summary",
            "description": "Monday 08:00 Berlin time: last week's sales by region, for the sales team",
            "scheduleSpec": {
                "pattern": "CRON",
                "cron": {"expression": "0 8 ? * MON *", "timezone": "Europe/Berlin"},
            },
            "enabled": True,
            "actionType": "INVOKE_AGENT",
            "agentConfig": {
                "agentExecutionRequest": {
                    "agentId": AGENT_ID,
                    "input": [
                        {
                            "inputType": "TEXT",
                            "content": "Summarise last week's sales by region and flag every region whose "
                            "revenue fell more than 10% against the week before.",
                        }
                    ],
                    "environmentVariables": {"REPORT_CHANNEL": "#sales"},
                },
                "version": {"versionState": "PUBLISHED", "versionNumber": 3},
                "continueOnError": False,
                "description": "Runs the sales analyst agent, one turn",
            },
        },
        {
            "eventName": "Reset weekly order counters",
            "cronExpression": "cron(5 0 ? * MON *)",
            "timezone": "America/New_York",
            "actionType": "UPDATE_SVCDB",
            "svcDbConfig": {
                "operation": "UPDATE",
                "targetTableId": CUSTOMERS_TABLE_ID,
                "values": {"weekly_orders": {"columnType": "NUMBER", "integerValue": 0}},
                "whereGroups": [
                    {
                        "logicalOperator": "AND",
                        "conditions": [
                            {"columnName": "segment", "operator": "IN", "value": ["retail", "wholesale"]},
                            {"columnName": "weekly_orders", "operator": "GREATER_THAN", "value": 0},
                        ],
                    }
                ],
                "skipIfTargetTableMissing": True,
                "description": "Zeroes the counter every Monday just after midnight, New York time",
            },
        },
    ]
}

UPDATE_EVENT: JsonDict = {
    "examples": [
        {
            "scheduledEventId": SCHEDULED_EVENT_ID,
            "description": "Weekdays 07:30 London time instead of Mondays only",
            "cronExpression": "cron(30 7 ? * MON-FRI *)",
            "timezone": "Europe/London",
        },
        {
            "scheduledEventId": SCHEDULED_EVENT_ID,
            "eventName": "Hourly inventory sync",
            "scheduleSpec": {"pattern": "EVERY", "every": {"value": 1, "unit": "HOURS"}},
            "actionType": "INVOKE_TOOL",
            "toolConfig": _INVENTORY_SYNC,
        },
        {"scheduledEventId": SCHEDULED_EVENT_ID, "enabled": False},
    ]
}

EVENT_ID_ONLY: JsonDict = {"examples": [{"scheduledEventId": SCHEDULED_EVENT_ID}]}

TOGGLE_EVENT: JsonDict = {
    "examples": [
        {"scheduledEventId": SCHEDULED_EVENT_ID, "enabled": False},
        {"scheduledEventId": SCHEDULED_EVENT_ID, "enabled": True},
    ]
}

EVENT_RUNS: JsonDict = {
    "examples": [
        {"scheduledEventId": SCHEDULED_EVENT_ID, "page": 0, "size": 25},
        {"scheduledEventId": SCHEDULED_EVENT_ID, "page": 0, "size": 100, "status": "FAILED"},
    ]
}

EMPTY: JsonDict = {"examples": [{}]}

PREVIEW_SCHEDULE: JsonDict = {
    "examples": [
        {
            "scheduleSpec": {
                "pattern": "CRON",
                "cron": {"expression": "30 2 * * ? *", "timezone": "Europe/Berlin"},
            },
            "count": 4,
            "from": "2027-03-26T12:00:00+01:00",
        },
        {"cronExpression": "cron(0 9 ? * MON-FRI *)", "timezone": "America/New_York", "count": 5},
        {"cronExpression": "rate(15 minutes)", "count": 3, "from": "2027-01-04T08:00:00Z"},
        {"scheduledEventId": SCHEDULED_EVENT_ID, "count": 10},
    ]
}
