"""The webhooks room's own request dependencies: ``TriggerTargetsDep`` and, for the trigger and the replay
only, ``Svc``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ingress.webhooks.services import Services
from ingress.webhooks.trigger_targets import TriggerTargets


async def get_trigger_targets(request: Request) -> TriggerTargets:
    targets: TriggerTargets = request.app.state.trigger_targets
    return targets


async def get_trigger_services(request: Request) -> Services:
    services: Services = request.app.state.trigger_services
    return services


TriggerTargetsDep = Annotated[TriggerTargets, Depends(get_trigger_targets)]
Svc = Annotated[Services, Depends(get_trigger_services)]
