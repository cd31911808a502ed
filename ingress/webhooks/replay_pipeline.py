"""One replay: a stored original request through the webhook's CURRENT configuration, as the trigger runs a
live one (``ingress/webhooks/trigger.py``), minus what a replay does not repeat.

Not repeated: the webhook key and the provider signature (the poweruser calling /replay is authorised, and
the history never kept the secret headers a signature needs). Repeated, with the current configuration: the
validation script (a refusal means no replay), the content filter (FILTERED), the transform
(TRANSFORM_FAILED on failure); the handler runs later, in the worker, as for any delivery.

Headers and query parameters are the stored ones without the values the history redacted (credentials,
``secretHeaders``, the provider's signature headers): a script or mapping reading one of them finds it
absent. Scripts run in the sandbox under the company's replay tenant (``<companyId>:replay``), which has its
own share of workers and CPU allowance, so a bulk replay never spends the allowance the company's live
deliveries run on.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

from core.filters import MAX_MATCH_STEPS, FilterTooCostly, matches
from core.webhooks.replay import stored_request_part
from core.webhooks.transform import TransformError, apply_jsonpath, apply_transform, needs_sandbox
from ingress.webhooks.services import Services
from ingress.webhooks.trigger import INLINE_TRANSFORM_BYTES
from ingress.webhooks.trigger_recording import REDACTED, resource_of
from ingress.webhooks.trigger_screening import INLINE_BYTES, INLINE_MATCH_STEPS, Screens, parsed_json
from ingress.webhooks.trigger_transform import compiled_mappings, jsonpath_in_sandbox
from schemas.filters import FilterConfig
from sinks import credentials
from sinks.db.webhooks.deliveries import Delivery, TriggerTarget
from sinks.db.webhooks.replays import StoredRequest
from sinks.scripting.sandbox import ScriptError, run_validation, script_transform
from sinks.scripting.workers import SandboxBusy

T = TypeVar("T")
SANDBOX_BUSY = "Not replayed: the sandbox stayed busy; replay this execution again by its executionId"
FILTER_TOO_COSTLY = "Filter not evaluated: {}; the delivery was not queued"


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


@dataclass(frozen=True)
class Refused:
    """The current validation script refused the stored request: nothing is recorded."""

    message: str


def replay_tenant(company_id: str) -> str:
    return f"{company_id}:replay"


def _grouped(values: dict[str, str]) -> dict[str, list[str]]:
    return {name: [value] for name, value in values.items()}


def _match(flt: FilterConfig, body: str, headers: dict[str, str], query: dict[str, str], steps: int) -> bool:
    return matches(
        flt,
        body=parsed_json(body.encode("utf-8")),
        headers=_grouped(headers),
        query=_grouped(query),
        max_steps=steps,
    )


async def _filter_note(
    screens: Screens, body: str, headers: dict[str, str], query: dict[str, str]
) -> tuple[bool, str | None]:
    """(passed, note), as the trigger filters: a small match on the event loop, a larger one on a thread,
    failing closed when it is too costly even there."""
    flt = screens.filter
    if flt is None:
        return True, None
    if len(body) <= INLINE_BYTES:
        try:
            return _match(flt, body, headers, query, INLINE_MATCH_STEPS), None
        except FilterTooCostly:
            pass
    try:
        return await run_in_threadpool(_match, flt, body, headers, query, MAX_MATCH_STEPS), None
    except FilterTooCostly as too_costly:
        return False, FILTER_TOO_COSTLY.format(too_costly)


async def _transform(
    svc: Services,
    target: TriggerTarget,
    wait: SandboxWait,
    body: str,
    headers: dict[str, str],
    query: dict[str, str],
) -> tuple[dict[str, str] | None, str | None]:
    """(variables, transform error), as the trigger transforms, scripts under the replay tenant."""
    config = target.config.get("payloadTransformConfig") or {}
    transform_type = str(config.get("transformType") or "JSONPATH")
    mappings = config.get("jsonPathMappings") or {}
    content_type = headers.get("content-type")
    tenant = replay_tenant(target.company_id)
    try:
        if transform_type == "JSONPATH" and needs_sandbox(mappings):
            # jsonpath_in_sandbox names the sandbox tenant by the target's company: the replay tenant here.
            as_replay = replace(target, company_id=tenant)
            variables = await wait.run(
                lambda: jsonpath_in_sandbox(svc, as_replay, mappings, body, query, content_type)
            )
        elif transform_type == "JSONPATH" and len(body) <= INLINE_TRANSFORM_BYTES:
            variables = apply_jsonpath(compiled_mappings(target, mappings), body, query, content_type)
        else:
            runner = script_transform(tenant=tenant)
            variables = await wait.run(
                lambda: run_in_threadpool(apply_transform, config, body, headers, query, run_script=runner)
            )
    except TransformError as exc:
        return None, str(exc)
    return variables, None


async def rerun(
    svc: Services,
    target: TriggerTarget,
    screens: Screens,
    stored: StoredRequest,
    wait: SandboxWait,
    now: datetime,
) -> Delivery | Refused:
    """The new execution's delivery for ``stored``, or why the current validation script refused it.
    Raises SandboxWaitOver when the sandbox stayed busy too long."""
    headers = stored_request_part(stored.headers_json, REDACTED)
    query = stored_request_part(stored.query_json, REDACTED)
    body = stored.payload
    validation = target.config.get("validationConfig") or {}
    if validation.get("enableValidation") and validation.get("validationScript"):
        script = validation["validationScript"]
        tenant = replay_tenant(target.company_id)
        try:
            outcome = await wait.run(
                lambda: run_in_threadpool(run_validation, script, headers, body, query, tenant=tenant)
            )
        except ScriptError as exc:
            return Refused(f"Webhook validation failed: {exc}")
        if not outcome.valid:
            return Refused(outcome.message)
    transform_type = str(
        (target.config.get("payloadTransformConfig") or {}).get("transformType") or "JSONPATH"
    )
    passed, note = await _filter_note(screens, body, headers, query)
    variables: dict[str, str] | None = None
    error: str | None = None
    if passed:
        variables, error = await _transform(svc, target, wait, body, headers, query)
    resource_type, resource_id = resource_of(target.config)
    return Delivery(
        execution_id=credentials.new_id(),
        target=target,
        http_method=stored.http_method,
        source_ip=stored.source_ip,
        # As stored (the original's payload row is shared): the secret values stay redacted in the new
        # execution's history too.
        headers_json=stored.headers_json,
        query_json=stored.query_json or json.dumps(query),
        payload=body,
        transform_type=transform_type,
        variables_json=json.dumps(variables) if variables is not None else None,
        transform_error=error,
        resource_type=resource_type,
        resource_id=resource_id,
        received_at=now,
        filtered=not passed,
        filter_note=note,
        payload_id=stored.payload_id,
    )
