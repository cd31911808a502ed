"""What every peer's endpoint and task share with the bench: their settings (environment variables the bench
sets), the webhook's key check and the 202 answer."""

from __future__ import annotations

import os
import uuid
from typing import Any

# The header the bench's recording handler counts deliveries by (bench_webhook_load.serve_handler).
EXECUTION_HEADER = "x-svc-execution-id"
TIMEOUT_SECONDS = 10.0  # bench_webhook_load's webhook: executionSettings.timeoutSeconds
MAX_RETRIES = 5


def setting(name: str) -> str:
    return os.environ[f"PEER_{name}"]


def webhook_keys() -> dict[str, str]:
    """webhook id -> its key: the per-webhook key the endpoint checks with a dict lookup."""
    return {setting("WEBHOOK_ID"): setting("WEBHOOK_KEY")}


def key_matches(keys: dict[str, str], webhook_id: str, key: str | None) -> bool:
    return key is not None and keys.get(webhook_id) == key


def new_execution_id() -> str:
    return uuid.uuid4().hex


def accepted_body(execution_id: str, webhook_id: str) -> dict[str, Any]:
    """The same fields svc's trigger answers with its 202."""
    return {
        "success": True,
        "message": "Webhook received and queued for processing",
        "executionId": execution_id,
        "webhookId": webhook_id,
        "errors": [],
    }


# svc's trigger route (bench_webhook_load.TRIGGER): every stack is sent the same requests.
TRIGGER_PATH = "/clients/custom-webhooks"

# Procrastinate's worker: jobs run at once on its event loop, as "Execute multiple jobs at the same time"
# shows (``--concurrency=30``), with a pool of as many connections plus one, as "Mind the size of your
# PostgreSQL pool" asks for jobs this short.
PROCRASTINATE_CONCURRENCY = 30
