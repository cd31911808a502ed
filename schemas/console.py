"""The console's forms (ingress/console/), validated before anything is sent to the API. Each turns into the
body of the API call it stands for; the API validates that body again as its own."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.webhooks import ExecutionStatus

_MAPPING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
RESOURCE_TYPES = ("TOOL", "AGENT", "MANAGER")


def parse_mappings(text: str) -> dict[str, str]:
    """``name = $.json.path`` lines (blank lines ignored) as JSONPath mappings; ValueError names the line."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, equals, path = line.partition("=")
        name, path = name.strip(), path.strip()
        if not equals or not _MAPPING_NAME.match(name) or not path:
            raise ValueError(f"line {number}: write a mapping as name = $.path")
        found[name] = path
    return found


class _Form(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, frozen=True)


def _blank_is_none(value: Any) -> Any:
    return None if value == "" else value


class WebhookForm(_Form):
    name: str = Field(min_length=1, max_length=200)
    resource_type: Literal["TOOL", "AGENT", "MANAGER"] = "TOOL"
    resource_id: str = Field("", max_length=100)
    mappings: str = Field("", max_length=20_000)

    @classmethod
    def blank(cls, fields: dict[str, str] | None = None) -> dict[str, str]:
        """The form's fields to show again (as typed), or empty ones."""
        given = fields or {}
        return {name: given.get(name, "") for name in ("name", "resource_type", "resource_id", "mappings")}

    def webhook_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self.name}
        mappings = parse_mappings(self.mappings)
        if mappings:
            config["payloadTransformConfig"] = {"transformType": "JSONPATH", "jsonPathMappings": mappings}
        if self.resource_id:
            config["resourceExecutionConfig"] = {
                "resourceType": self.resource_type,
                "resourceId": self.resource_id,
            }
        return config


class DeliveryFilter(_Form):
    STATUSES: ClassVar[tuple[str, ...]] = tuple(status.value for status in ExecutionStatus)

    status: ExecutionStatus | None = None
    page: int = Field(0, ge=0, le=1_000_000)

    _blank = field_validator("status", mode="before")(_blank_is_none)


class ReplayForm(_Form):
    """One delivery (``execution_id``), or every delivery matching ``status`` and a time range; ``confirm``
    absent: a dry run that only counts."""

    execution_id: str | None = Field(None, max_length=100)
    status: ExecutionStatus | None = None
    from_: str | None = Field(None, alias="from", max_length=40)
    to: str | None = Field(None, max_length=40)
    confirm: bool = False

    _blank = field_validator("execution_id", "status", "from_", "to", mode="before")(_blank_is_none)

    def request_body(self, webhook_id: str) -> dict[str, Any]:
        if self.execution_id:
            return {"webhookId": webhook_id, "executionIds": [self.execution_id]}
        chosen: dict[str, Any] = {}
        if self.status:
            chosen["status"] = self.status.value
        if self.from_:
            chosen["from"] = self.from_
        if self.to:
            chosen["to"] = self.to
        return {"webhookId": webhook_id, "filter": chosen, "dryRun": not self.confirm}


class ScheduleForm(_Form):
    event_name: str = Field("", max_length=200)
    pattern: Literal["CRON", "EVERY", "ONCE"] = "CRON"
    expression: str = Field("", max_length=300)
    every_value: int | None = Field(None, ge=1, le=1_000_000)
    every_unit: Literal["MINUTES", "HOURS", "DAYS"] = "HOURS"
    at: str = Field("", max_length=40)
    timezone: str = Field("UTC", max_length=100)
    tool_id: str = Field("", max_length=100)

    _blank = field_validator("every_value", mode="before")(_blank_is_none)

    def schedule_spec(self) -> dict[str, Any]:
        if self.pattern == "EVERY":
            return {"pattern": "EVERY", "every": {"value": self.every_value or 1, "unit": self.every_unit}}
        if self.pattern == "ONCE":
            return {"pattern": "ONCE", "once": {"at": self.at, "timezone": self.timezone}}
        return {"pattern": "CRON", "cron": {"expression": self.expression, "timezone": self.timezone}}

    def create_body(self) -> dict[str, Any]:
        return {
            "eventName": self.event_name,
            "scheduleSpec": self.schedule_spec(),
            "actionType": "INVOKE_TOOL",
            "toolConfig": {"toolExecutionRequest": {"toolId": self.tool_id}},
        }


class QueryForm(_Form):
    table_id: str = Field(min_length=1, max_length=100)
    sql: str = Field(min_length=1, max_length=100_000)
