"""The console's forms (ingress/console/), validated before anything is sent to the API. Each turns into the
body of the API call it stands for; the API validates that body again as its own."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, ClassVar, Literal
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.alerts import DEFAULT_RESOLVE_AFTER_SECONDS, AlertState, ConditionType
from schemas.scheduled.events import RunStatus
from schemas.verification import VerificationProvider
from schemas.webhooks import ExecutionStatus

_MAPPING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
RESOURCE_TYPES = ("TOOL", "AGENT", "MANAGER")
MAX_SCRIPT_CHARACTERS = 70_000  # the API's bound is 64 KiB of UTF-8, checked there


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
    """The deliveries view's filters, kept in its URL (``status``, ``from``, ``to``, ``body``, ``page``) so
    that paging keeps them. The times and the text are sent as typed: the API judges them and words the
    refusal."""

    STATUSES: ClassVar[tuple[str, ...]] = tuple(status.value for status in ExecutionStatus)

    status: ExecutionStatus | None = None
    from_: str | None = Field(None, alias="from", max_length=100)
    to: str | None = Field(None, max_length=100)
    body: str | None = Field(None, max_length=1000)
    page: int = Field(0, ge=0, le=1_000_000)

    _blank = field_validator("status", "from_", "to", "body", mode="before")(_blank_is_none)

    @property
    def narrowed(self) -> bool:
        return any(value is not None for value in (self.status, self.from_, self.to, self.body))

    def history_body(self, webhook_id: str, size: int) -> dict[str, Any]:
        """The ``/get-execution-history`` request for this page."""
        body: dict[str, Any] = {"webhookId": webhook_id, "page": self.page, "size": size}
        if self.status:
            body["status"] = self.status.value
        if self.from_:
            body["from"] = self.from_
        if self.to:
            body["to"] = self.to
        if self.body:
            body["bodyContains"] = self.body
        return body

    def query(self, page: int) -> str:
        """The view's URL query for ``page`` with the same filters."""
        chosen = {"status": self.status, "from": self.from_, "to": self.to, "body": self.body}
        return urlencode({**{name: value for name, value in chosen.items() if value}, "page": str(page)})


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


ACTION_CONFIGS: dict[str, str] = {
    "INVOKE_TOOL": "toolConfig",
    "INVOKE_AGENT": "agentConfig",
    "UPDATE_SVCDB": "svcDbConfig",
}


class ScheduleEditForm(ScheduleForm):
    """An existing event's name, schedule (its pattern, expression or interval, zone) and action (its type
    and that type's config, as JSON), sent whole to ``/update``."""

    action_type: Literal["INVOKE_TOOL", "INVOKE_AGENT", "UPDATE_SVCDB"] = "INVOKE_TOOL"
    action_config: str = Field("", max_length=100_000)

    @classmethod
    def shown(cls, event: dict[str, Any]) -> dict[str, str]:
        """The form's fields for an event as ``/get`` answers it."""
        spec = event.get("scheduleSpec") or {}
        cron, every, once = spec.get("cron") or {}, spec.get("every") or {}, spec.get("once") or {}
        action = str(event.get("actionType") or "INVOKE_TOOL")
        config = event.get(ACTION_CONFIGS.get(action, ""))
        return {
            "event_name": str(event.get("eventName", "")),
            "pattern": str(spec.get("pattern", "CRON")),
            "expression": str(cron.get("expression", "")),
            "every_value": str(every.get("value", "")),
            "every_unit": str(every.get("unit", "HOURS")),
            "at": str(once.get("at", "")),
            "timezone": str(cron.get("timezone") or once.get("timezone") or event.get("timezone") or "UTC"),
            "tool_id": "",
            "action_type": action,
            "action_config": json.dumps(config, indent=2, ensure_ascii=False) if config else "",
        }

    def update_body(self, event_id: str) -> dict[str, Any]:
        """The ``/update`` body; ValueError when the action config is not a JSON object."""
        try:
            config = json.loads(self.action_config or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"Action config is not JSON: {exc.msg} at line {exc.lineno}") from None
        if not isinstance(config, dict):
            raise ValueError("Action config must be a JSON object")
        return {
            "scheduledEventId": event_id,
            "eventName": self.event_name,
            "scheduleSpec": self.schedule_spec(),
            "actionType": self.action_type,
            ACTION_CONFIGS[self.action_type]: config,
        }


class QueryForm(_Form):
    table_id: str = Field(min_length=1, max_length=100)
    sql: str = Field(min_length=1, max_length=100_000)


class AlertFilter(_Form):
    STATES: ClassVar[tuple[str, ...]] = tuple(state.value for state in AlertState)

    state: AlertState | None = None
    cursor: str | None = Field(None, max_length=200)

    _blank = field_validator("state", "cursor", mode="before")(_blank_is_none)


# The condition field that names a rule's one subject, by condition type (blank: any of the company's).
RULE_SUBJECTS: dict[str, str] = {
    ConditionType.WEBHOOK_FAILURES: "webhookId",
    ConditionType.CIRCUIT_OPEN: "resourceId",
    ConditionType.SCHEDULED_RUN: "eventId",
    ConditionType.TABLE_FAILURE: "tableId",
}


class AlertRuleForm(_Form):
    """An alert rule's fields; the condition's numbers are those of its type (the API says which is
    missing). ``enabled`` and ``rotate_secret`` are checkboxes: absent means off."""

    CONDITIONS: ClassVar[tuple[str, ...]] = tuple(kind.value for kind in ConditionType)

    name: str = Field("", max_length=200)
    condition_type: ConditionType = ConditionType.WEBHOOK_FAILURES
    subject_id: str = Field("", max_length=100)
    count: int | None = Field(None, ge=1, le=1_000_000)
    within_minutes: int | None = Field(None, ge=1, le=1_440)
    for_seconds: int | None = Field(None, ge=0, le=86_400)
    resolve_after_seconds: int = Field(DEFAULT_RESOLVE_AFTER_SECONDS, ge=1)
    notify: str = Field("", max_length=100)
    enabled: bool = False
    rotate_secret: bool = False

    _blank = field_validator("count", "within_minutes", "for_seconds", mode="before")(_blank_is_none)

    @classmethod
    def shown(cls, rule: dict[str, Any] | None) -> dict[str, Any]:
        """The form's fields for a rule as ``/rules/get-all`` answers it, or a new rule's defaults."""
        if rule is None:
            return {**cls(enabled=True).model_dump(mode="json"), "count": 5, "within_minutes": 10}
        condition = rule["condition"]
        kind = str(condition["type"])
        return {
            "name": rule["name"],
            "condition_type": kind,
            "subject_id": condition.get(RULE_SUBJECTS.get(kind, "")) or "",
            "count": condition.get("count"),
            "within_minutes": condition.get("withinMinutes"),
            "for_seconds": condition.get("forSeconds"),
            "resolve_after_seconds": rule["resolveAfterSeconds"],
            "notify": rule.get("notify") or "",
            "enabled": bool(rule["enabled"]),
            "rotate_secret": False,
        }

    def condition(self) -> dict[str, Any]:
        condition: dict[str, Any] = {"type": self.condition_type.value}
        if self.subject_id:
            condition[RULE_SUBJECTS[self.condition_type]] = self.subject_id
        if self.condition_type is ConditionType.WEBHOOK_FAILURES:
            condition.update(count=self.count, withinMinutes=self.within_minutes)
        elif self.condition_type is ConditionType.CIRCUIT_OPEN:
            condition["forSeconds"] = self.for_seconds
        return condition

    def create_body(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "condition": self.condition(),
            "resolveAfterSeconds": self.resolve_after_seconds,
            "notify": self.notify or None,
            "enabled": self.enabled,
        }

    def update_body(self, rule_id: str) -> dict[str, Any]:
        """Every field sent, so the rule becomes what the form shows (a blank notify stops notifications)."""
        return {"ruleId": rule_id, **self.create_body(), "rotateSecret": self.rotate_secret}


class RunsFilter(_Form):
    STATUSES: ClassVar[tuple[str, ...]] = tuple(status.value for status in RunStatus)

    status: RunStatus | None = None
    page: int = Field(0, ge=0, le=100_000)

    _blank = field_validator("status", mode="before")(_blank_is_none)


def zoned_instant(local: str, zone: str) -> datetime:
    """A wall-clock time typed in a form (``2027-03-28T09:00``, or with an offset of its own) in ``zone``,
    as an aware instant; ValueError names what is wrong."""
    try:
        tz = ZoneInfo(zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone: {zone}") from None
    try:
        moment = datetime.fromisoformat(local.strip())
    except ValueError:
        raise ValueError("write the time as 2027-03-28T09:00") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=tz)


class PauseForm(_Form):
    """``until`` blank resumes now; otherwise a wall-clock time in ``timezone``."""

    until: str = Field("", max_length=40)
    timezone: str = Field("UTC", max_length=100)

    def request_body(self, event_id: str) -> dict[str, Any]:
        body: dict[str, Any] = {"scheduledEventId": event_id}
        if self.until:
            body["until"] = zoned_instant(self.until, self.timezone).isoformat()
        return body


PROVIDERS = tuple(provider.value for provider in VerificationProvider)


def parse_filter(text: str) -> dict[str, Any] | None:
    """A content filter typed as a JSON object (``{"body": {...}, "headers": {...}}``); blank: none.
    ValueError says why it is not one; the API checks its operators."""
    if not text.strip():
        return None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"content filter: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(parsed, dict):
        raise ValueError('content filter: write a JSON object, such as {"body": {"type": "paid"}}')
    return parsed


def _unix_lines(value: Any) -> Any:
    """A textarea's lines come back ending in CRLF: a script is stored with plain newlines."""
    return value.replace("\r\n", "\n") if isinstance(value, str) else value


def _transform_part(transform_type: str, mappings: dict[str, str], script: str) -> dict[str, Any]:
    """The ``payloadTransformConfig`` of the form: mappings go only with JSONPATH, a script only with
    SVC_SCRIPT (the API requires one there and words its refusal); neither is dropped unasked."""
    if transform_type == "JSONPATH":
        if script:
            raise ValueError("a transform script goes only with SVC_SCRIPT: clear it or choose SVC_SCRIPT")
        return {"transformType": "JSONPATH", "jsonPathMappings": mappings or None}
    if mappings:
        raise ValueError("JSONPath mappings go only with a JSONPATH transform: clear them or choose JSONPATH")
    return {"transformType": "SVC_SCRIPT", "transformScript": script or None}


class WebhookEditForm(_Form):
    """A webhook's editable parts; every other part of its configuration is sent back as ``/get`` answered
    it. ``secret`` blank keeps the stored one (the API keeps it while the provider is the same)."""

    name: str = Field(min_length=1, max_length=200)
    resource_type: Literal["TOOL", "AGENT", "MANAGER"] = "TOOL"
    resource_id: str = Field("", max_length=100)
    mappings: str = Field("", max_length=20_000)
    content_filter: str = Field("", max_length=20_000)
    provider: VerificationProvider | None = None
    secret: str = Field("", max_length=1_000)
    header_name: str = Field("", max_length=100)
    transform_type: Literal["JSONPATH", "SVC_SCRIPT"] = "JSONPATH"
    transform_script: str = Field("", max_length=MAX_SCRIPT_CHARACTERS)
    enable_validation: bool = False
    validation_script: str = Field("", max_length=MAX_SCRIPT_CHARACTERS)

    _blank = field_validator("provider", mode="before")(_blank_is_none)
    _lines = field_validator("transform_script", "validation_script", mode="before")(_unix_lines)

    @classmethod
    def shown(cls, config: dict[str, Any]) -> dict[str, str]:
        """The form's fields for a configuration as ``/get`` answers it (the secret never among them)."""
        handler = config.get("resourceExecutionConfig") or {}
        transform = config.get("payloadTransformConfig") or {}
        verification = config.get("verificationConfig") or {}
        validation = config.get("validationConfig") or {}
        lines = "\n".join(f"{k} = {v}" for k, v in (transform.get("jsonPathMappings") or {}).items())
        chosen = config.get("filterConfig")
        return {
            "name": str(config.get("name", "")),
            "resource_type": str(handler.get("resourceType", "TOOL")),
            "resource_id": str(handler.get("resourceId", "")),
            "mappings": lines,
            "content_filter": json.dumps(chosen, indent=2, ensure_ascii=False) if chosen else "",
            "provider": str(verification.get("provider", "")),
            "secret": "",
            "header_name": str(verification.get("headerName") or ""),
            "transform_type": str(transform.get("transformType") or "JSONPATH"),
            "transform_script": str(transform.get("transformScript") or ""),
            "enable_validation": "true" if validation.get("enableValidation") else "false",
            "validation_script": str(validation.get("validationScript") or ""),
        }

    def edited(self, current: dict[str, Any]) -> dict[str, Any]:
        """``current`` (the configuration ``/get`` answered) with this form's parts put in; ValueError names a
        mapping or a filter that is not one."""
        config = {**current, "name": self.name}
        mappings = parse_mappings(self.mappings)
        config["payloadTransformConfig"] = _transform_part(
            self.transform_type, mappings, self.transform_script
        )
        config["validationConfig"] = {
            "enableValidation": self.enable_validation,
            "validationScript": self.validation_script or None,
        }
        handler = dict(config.get("resourceExecutionConfig") or {})
        if self.resource_id:
            same = handler.get("resourceId") == self.resource_id
            handler = {**(handler if same else {}), "resourceType": self.resource_type}
            handler["resourceId"] = self.resource_id
            config["resourceExecutionConfig"] = handler
        else:
            config.pop("resourceExecutionConfig", None)
        chosen = parse_filter(self.content_filter)
        if chosen is None:
            config.pop("filterConfig", None)
        else:
            config["filterConfig"] = chosen
        config.pop("verificationConfig", None)
        if self.provider is not None:
            previous = current.get("verificationConfig") or {}
            kept = previous if previous.get("provider") == self.provider.value else {}
            verification = {k: v for k, v in kept.items() if k != "secretHint" and v is not None}
            verification["provider"] = self.provider.value
            if self.secret:
                verification["secret"] = self.secret
            if self.provider is VerificationProvider.HMAC_SHA256 and self.header_name:
                verification["headerName"] = self.header_name
            config["verificationConfig"] = verification
        return config


class TransformSampleForm(_Form):
    """The edit page's live test: a sample body (and its content type) run through the form's configuration,
    unsaved (``/test-transform``)."""

    sample_body: str = Field("", max_length=100_000)
    sample_content_type: str = Field("application/json", max_length=200)

    def request_body(self, webhook_id: str, config: dict[str, Any]) -> dict[str, Any]:
        headers = {"content-type": self.sample_content_type} if self.sample_content_type else {}
        return {
            "webhookId": webhook_id,
            "webhookConfig": config,
            "body": self.sample_body,
            "headers": headers,
        }
