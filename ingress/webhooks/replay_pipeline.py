"""One replay: a stored original request through the webhook's CURRENT configuration, by the pipeline the
trigger runs a live one through (``ingress/webhooks/pipeline.py``), minus what a replay does not repeat.

Not repeated: the webhook key and the provider signature (the poweruser calling /replay is authorised, and
the history never kept the secret headers a signature needs). Repeated, with the current configuration: the
validation script (a refusal means no replay), the content filter (FILTERED), the transform
(TRANSFORM_FAILED on failure); the handler runs later, in the worker, as for any delivery.

Headers and query parameters are the stored ones without the values the history redacted (credentials,
``secretHeaders``, the provider's signature headers): a script or mapping reading one of them finds it absent.
Scripts run in the sandbox under the company's replay tenant (``<companyId>:replay``), which has its own share
of workers and CPU allowance, so a bulk replay never spends the allowance the company's live deliveries run
on.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from core.webhooks.replay import stored_request_part
from ingress.webhooks.pipeline import Incoming, Refused, Run, delivery_of, process
from ingress.webhooks.trigger_recording import REDACTED
from ingress.webhooks.trigger_screening import Screens
from sinks import credentials
from sinks.db.webhooks.deliveries import Delivery, TriggerTarget
from sinks.db.webhooks.replays import StoredRequest
from sinks.scripting.workers import SandboxBusy

T = TypeVar("T")
SANDBOX_BUSY = "Not replayed: the sandbox stayed busy; replay this execution again by its executionId"


class SandboxWaitOver(Exception):
    """The sandbox stayed busy past the replay's wait budget."""


@dataclass
class SandboxWait:
    """How long one replay call may still wait for the sandbox in all (busy answers' Retry-After)."""

    deadline: float

    async def run(self, call: Callable[[], Awaitable[T]]) -> T:
        while True:
            try:
                return await call()
            except SandboxBusy as busy:
                pause = max(0.05, float(busy.retry_after))
                if time.monotonic() + pause > self.deadline:
                    raise SandboxWaitOver(str(busy)) from busy
                await asyncio.sleep(pause)


def replay_tenant(company_id: str) -> str:
    return f"{company_id}:replay"


async def rerun(
    target: TriggerTarget,
    screens: Screens,
    stored: StoredRequest,
    payload: str,
    wait: SandboxWait,
    now: datetime,
    *,
    jsonpath_cpu_ms: int,
) -> Delivery | Refused:
    """The new execution's delivery for ``stored``, whose body (read back, inline or from the object store)
    is ``payload``, or why the current validation script refused it. Raises SandboxWaitOver when the sandbox
    stayed busy too long."""
    headers = stored_request_part(stored.headers_json, REDACTED)
    query = stored_request_part(stored.query_json, REDACTED)
    run = Run(target, screens, replay_tenant(target.company_id), jsonpath_cpu_ms, sandbox=wait.run)
    processed = await process(run, Incoming.stored(payload, headers, query))
    if isinstance(processed, Refused):
        return processed
    return delivery_of(
        target,
        processed,
        execution_id=credentials.new_id(),
        http_method=stored.http_method,
        source_ip=stored.source_ip,
        # As stored (the original's payload row is shared): the secret values stay redacted in the new
        # execution's history too.
        headers_json=stored.headers_json,
        query_json=stored.query_json or json.dumps(query),
        payload=payload,
        received_at=now,
        payload_id=stored.payload_id,
    )
