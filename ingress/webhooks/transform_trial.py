"""``POST /svc_poweruser/custom-webhooks/test-transform``: a sample request through a webhook's validation
script, content filter and transform, by the pipeline a trigger runs (``ingress/webhooks/pipeline.py``),
with nothing recorded, queued or delivered.

The configuration tested is a saved webhook's (``webhookId``, READ on it) or one sent with the call
(``webhookConfig``, checked as ``/create`` checks it, unsaved). Scripts and JSONPath beyond plain paths run
in the sandbox under the company's own tenant and the trigger's budgets (``SVC_JSONPATH_CPU_MS``, the
sandbox's per-script limits), so a test can spend no more than a trigger could; a busy sandbox answers 429
with ``Retry-After``, as the trigger does. The provider signature is not checked: a sample carries none.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from ingress.deps import PoweruserCaller, Sessions, SessionsDep, SettingsDep
from ingress.errors import ApiError
from ingress.webhooks.config import tested_config
from ingress.webhooks.manage import _visible
from ingress.webhooks.pipeline import Incoming, Refused, Run, process
from ingress.webhooks.trigger_screening import FILTER, Screens
from schemas.admin import Principal
from schemas.enums import AccessLevel
from schemas.filters import FilterConfig
from schemas.transform_trial import TransformTrialAnswer, TransformTrialRequest
from sinks.db.webhooks.deliveries import TriggerTarget
from sinks.scripting.workers import SandboxBusy

router = APIRouter(prefix="/svc_poweruser/custom-webhooks", tags=["custom webhooks"])


def _tested_target(sessions: Sessions, caller: Principal, body: TransformTrialRequest) -> TriggerTarget:
    webhook_id = ""
    config: dict[str, Any] | None = None
    if body.webhook_id is not None:
        with sessions() as session:
            visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
            webhook_id, config = visible.webhook.id, json.loads(visible.webhook.config_json)
    if body.webhook_config is not None:
        config = tested_config(body.webhook_config)
    if config is None:  # the model requires one of the two
        raise ApiError(400, "send webhookId, webhookConfig or both")
    return TriggerTarget(
        webhook_id=webhook_id,
        company_id=caller.company_id,
        name=str(config.get("name", "")),
        is_enabled=True,
        config=config,
        key_id=None,
        key_digest=None,
        key_enabled=False,
    )


def screens_of(target: TriggerTarget) -> Screens:
    """The content filter only: the signature is the trigger's check of a caller, not of a body."""
    flt = target.config.get(FILTER)
    return Screens(verification=None, filter=FilterConfig.model_validate(flt) if flt else None)


@router.post("/test-transform", response_model=TransformTrialAnswer, response_model_by_alias=True)
async def try_transform(
    body: TransformTrialRequest, caller: PoweruserCaller, sessions: SessionsDep, settings: SettingsDep
) -> TransformTrialAnswer:
    """The variables a webhook's transform makes of a sample body (or its error), without saving."""
    target = await run_in_threadpool(_tested_target, sessions, caller, body)
    headers = {name.lower(): value for name, value in body.headers.items()}
    run = Run(target, screens_of(target), caller.company_id, settings.jsonpath_cpu_ms)
    try:
        processed = await process(run, Incoming.stored(body.body, headers, body.query_params))
    except SandboxBusy as busy:
        raise ApiError(429, str(busy), headers={"Retry-After": str(busy.retry_after)}) from None
    transform_type = target.webhook_config.payload_transform_config.transform_type
    if isinstance(processed, Refused):
        return TransformTrialAnswer(
            transform_type=transform_type, validated=False, validation_message=processed.message
        )
    timing = processed.transform_ns
    return TransformTrialAnswer(
        transform_type=transform_type,
        validated=True,
        filtered=not processed.filter.passed,
        filter_note=processed.filter.note,
        variables=processed.variables,
        transform_error=processed.transform_error,
        duration_ms=round((timing[1] - timing[0]) / 1e6, 3) if timing else None,
    )
