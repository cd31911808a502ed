"""The webhooks room's own request dependencies: ``TriggerTargetsDep`` and, for the trigger's route only,
``TriggerClientsDep``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ingress.webhooks.trigger_clients import TriggerClients
from ingress.webhooks.trigger_targets import TriggerTargets


async def get_trigger_targets(request: Request) -> TriggerTargets:
    targets: TriggerTargets = request.app.state.trigger_targets
    return targets


async def get_trigger_clients(request: Request) -> TriggerClients:
    clients: TriggerClients = request.app.state.trigger_clients
    return clients


TriggerTargetsDep = Annotated[TriggerTargets, Depends(get_trigger_targets)]
TriggerClientsDep = Annotated[TriggerClients, Depends(get_trigger_clients)]
