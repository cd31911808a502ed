"""The webhook pipeline, one for the live trigger (``ingress/webhooks/trigger.py``) and a replay
(``ingress/webhooks/replay_pipeline.py``): the validation script (a refusal records nothing), the
content filter (a delivery that does not match is FILTERED), the transform (a failure is TRANSFORM_FAILED),
and the history entry they make of the request.

What differs between the two is passed in: the sandbox tenant that scripts run under (the company's, or
its replay tenant), and how a busy sandbox is met (the trigger answers 429 at once; a replay waits within
its budget). Every size that decides where work runs is the body's size in bytes, as received (the
interface's limit is in bytes): up to ``INLINE_TRANSFORM_BYTES`` a JSONPATH transform and up to
``INLINE_BYTES`` a filter run on the event loop, larger ones on a worker thread.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

from starlette.concurrency import run_in_threadpool

from core.webhooks.transform import TransformError, apply_jsonpath, apply_transform, needs_sandbox
from ingress.webhooks.trigger_screening import FilterDecision, Pairs, Screens, filter_decision
from ingress.webhooks.trigger_transform import compiled_mappings, jsonpath_in_sandbox
from sinks.db.webhooks.deliveries import Delivery, TriggerTarget
from sinks.scripting.sandbox import ScriptError, run_validation, script_transform
from sinks.telemetry import now_ns

T = TypeVar("T")
# JSONPATH over a small body takes well under a millisecond: cheaper on the event loop than a thread hop.
# Scripts and large bodies go to a worker thread.
INLINE_TRANSFORM_BYTES = 16 * 1024
PASSED = FilterDecision(True)


class SandboxCall(Protocol):
    """How one pipeline run meets a busy sandbox: let ``SandboxBusy`` through, or wait and call again."""

    def __call__(self, call: Callable[[], Awaitable[T]]) -> Awaitable[T]: ...


async def at_once(call: Callable[[], Awaitable[T]]) -> T:
    """The trigger's way: a busy sandbox raises ``SandboxBusy`` to the caller."""
    return await call()


@dataclass(frozen=True)
class Incoming:
    """One request as the pipeline reads it: header names in lower case, a repeated header's values joined.
    ``lines`` gives every header line and query pair as sent, repeats included (the filter matches each
    value); it is called only when the webhook has a filter, so a delivery without one never builds them."""

    raw: bytes
    body: str
    headers: dict[str, str]
    query: dict[str, str]
    lines: Callable[[], tuple[Pairs, Pairs]]

    @classmethod
    def stored(cls, body: str, headers: dict[str, str], query: dict[str, str]) -> Incoming:
        """A request from the history (a replay): its headers and query as the history kept them."""
        return cls(
            body.encode("utf-8"), body, headers, query, lambda: (list(headers.items()), list(query.items()))
        )


@dataclass(frozen=True)
class Refused:
    """The validation script refused the request: nothing is recorded."""

    message: str


@dataclass(frozen=True)
class Processed:
    """What the pipeline made of a request the validation script let through."""

    transform_type: str
    filter: FilterDecision = PASSED
    variables: dict[str, str] | None = None
    transform_error: str | None = None
    # When the transform ran (start and end, ns), for its span; None when the filter dropped the request.
    transform_ns: tuple[int, int] | None = None


@dataclass(frozen=True)
class Run:
    """What one pipeline run needs besides the request: the sandbox tenant and how to meet a busy sandbox."""

    target: TriggerTarget
    screens: Screens
    tenant: str
    jsonpath_cpu_ms: int
    sandbox: SandboxCall = at_once


async def process(run: Run, incoming: Incoming) -> Refused | Processed:
    """Validate, filter and transform ``incoming``; raises what ``run.sandbox`` lets through."""
    refusal = await _refusal(run, incoming)
    if refusal is not None:
        return refusal
    transform_type = run.target.webhook_config.payload_transform_config.transform_type
    if run.screens.filter is not None:
        decision = await filter_decision(run.screens.filter, incoming.raw, *incoming.lines())
        if not decision.passed:
            return Processed(transform_type, filter=decision)
    started = now_ns()
    try:
        variables = await _transform(run, incoming)
    except TransformError as exc:
        return Processed(transform_type, transform_error=str(exc), transform_ns=(started, now_ns()))
    return Processed(transform_type, variables=variables, transform_ns=(started, now_ns()))


def transforms_inline(incoming: Incoming) -> bool:
    """Whether a JSONPATH transform of plain paths runs on the event loop: by the body's bytes."""
    return len(incoming.raw) <= INLINE_TRANSFORM_BYTES


async def _refusal(run: Run, incoming: Incoming) -> Refused | None:
    script = run.target.webhook_config.validation_script()
    if not script:
        return None
    try:
        outcome = await run.sandbox(
            lambda: run_in_threadpool(
                run_validation, script, incoming.headers, incoming.body, incoming.query, tenant=run.tenant
            )
        )
    except ScriptError as exc:
        return Refused(f"Webhook validation failed: {exc}")
    return None if outcome.valid else Refused(outcome.message)


async def _transform(run: Run, incoming: Incoming) -> dict[str, str]:
    config = run.target.webhook_config.payload_transform_config
    body, query = incoming.body, incoming.query
    if config.transform_type == "JSONPATH":
        mappings = config.json_path_mappings or {}
        content_type = incoming.headers.get("content-type")
        if needs_sandbox(mappings):
            cpu_ms, tenant = run.jsonpath_cpu_ms, run.tenant
            return await run.sandbox(
                lambda: jsonpath_in_sandbox(cpu_ms, tenant, mappings, body, query, content_type)
            )
        if transforms_inline(incoming):
            return apply_jsonpath(compiled_mappings(run.target, mappings), body, query, content_type)
    runner = script_transform(tenant=run.tenant)
    headers = incoming.headers
    return await run.sandbox(
        lambda: run_in_threadpool(apply_transform, config, body, headers, query, run_script=runner)
    )


def delivery_of(
    target: TriggerTarget,
    processed: Processed,
    *,
    execution_id: str,
    http_method: str,
    source_ip: str | None,
    headers_json: str,
    query_json: str,
    payload: str,
    received_at: datetime,
    trace_parent: str | None = None,
    payload_id: str | None = None,
) -> Delivery:
    """The history entry of a processed request (QUEUED, FILTERED or TRANSFORM_FAILED once recorded)."""
    resource_type, resource_id = target.webhook_config.resource()
    variables = processed.variables
    return Delivery(
        execution_id=execution_id,
        target=target,
        http_method=http_method,
        source_ip=source_ip,
        headers_json=headers_json,
        query_json=query_json,
        payload=payload,
        transform_type=processed.transform_type,
        variables_json=json.dumps(variables) if variables is not None else None,
        transform_error=processed.transform_error,
        resource_type=resource_type,
        resource_id=resource_id,
        received_at=received_at,
        filtered=not processed.filter.passed,
        filter_note=processed.filter.note,
        trace_parent=trace_parent,
        payload_id=payload_id,
    )
