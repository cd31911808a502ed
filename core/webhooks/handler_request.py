"""The request a handler receives for one attempt, built from the webhook's config and the delivery's
variables. Pure: no I/O. The recorded copy hides private variables."""

from __future__ import annotations

from typing import Any

from core.webhooks.substitute import substitute

REDACTED = "[REDACTED]"
# Inputs each resource type takes from resourceExecutionConfig (the spec's "Applies to" column).
INPUTS = {
    "TOOL": ("variables", "environmentVariables", "privateVariables"),
    "AGENT": ("userMessage", "promptTemplateVariables", "environmentVariables"),
    "MANAGER": ("userMessage", "promptTemplateVariables", "environmentVariables"),
    "SVCDB": ("svcDbConfig",),
}


def build_request(
    execution: dict[str, Any],
    variables: dict[str, str],
    *,
    execution_id: str,
    attempt_number: int,
    webhook_id: str,
) -> dict[str, Any]:
    """Every configured input with ``@@{name}`` replaced by the delivery's variables."""
    resource_type = str(execution.get("resourceType"))
    request: dict[str, Any] = {
        "executionId": execution_id,
        "attemptNumber": attempt_number,
        "idempotencyKey": f"{execution_id}:{attempt_number}",
        "webhookId": webhook_id,
        "resourceType": resource_type,
        "resourceId": execution.get("resourceId"),
    }
    for name in INPUTS.get(resource_type, ()):
        if execution.get(name) is not None:
            request[name] = substitute(execution[name], variables)
    return request


def recorded(request: dict[str, Any]) -> dict[str, Any]:
    """The copy written to history and logs: private variable values never leave the handler call."""
    if "privateVariables" not in request:
        return request
    hidden = {name: REDACTED for name in request["privateVariables"]}
    return {**request, "privateVariables": hidden}
