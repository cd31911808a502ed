"""Examples of the webhook replay request (``/svc_poweruser/custom-webhooks/replay``)."""

from __future__ import annotations

from pydantic import JsonValue
from pydantic.config import JsonDict

from schemas.examples.ids import WEBHOOK_ID

# Executions of the orders webhook that failed while its handler was down (UUIDv7, as the service issues).
FAILED_EXECUTION_IDS: list[JsonValue] = [
    "019c4a1d2f6e7b51a3c08e9d4f2b6a17",
    "019c4a1d30117c2e9b54d1a6e83f0c92",
]

REPLAY: JsonDict = {
    "examples": [
        {
            "webhookId": WEBHOOK_ID,
            "filter": {
                "status": "FAILED",
                "from": "2026-02-03T09:00:00+00:00",
                "to": "2026-02-03T11:30:00+00:00",
            },
            "dryRun": True,
            "limit": 10000,
        },
        {"webhookId": WEBHOOK_ID, "executionIds": FAILED_EXECUTION_IDS},
    ]
}
