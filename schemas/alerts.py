"""Alerts with a lifecycle (issue 44): a company's rules, the alerts they open and the notifications they send
(docs/webhooks.md, "Alerts").

A rule watches one condition; an alert is ``OPEN`` → ``ACKNOWLEDGED`` → ``RESOLVED`` for one rule and one
subject (a webhook, a destination, a scheduled event or a table), with the items it concerns.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import alerts as examples

MAX_ID_CHARS = 100
MAX_RULES_PER_COMPANY = 100
# The items an alert lists (the counts go on past it); a replay of an alert re-runs the listed executions.
MAX_ITEMS = 1_000
MAX_PAGE = 100
MAX_RESOLVE_AFTER_SECONDS = 7 * 86_400
DEFAULT_RESOLVE_AFTER_SECONDS = 300

OptionalId = Annotated[str | None, Field(None, min_length=1, max_length=MAX_ID_CHARS)]


class ConditionType(StrEnum):
    WEBHOOK_FAILURES = "WEBHOOK_FAILURES"
    CIRCUIT_OPEN = "CIRCUIT_OPEN"
    SCHEDULED_RUN = "SCHEDULED_RUN"
    TABLE_FAILURE = "TABLE_FAILURE"


class AlertState(StrEnum):
    OPEN = "OPEN"
    ACKNOWLEDGED = "ACKNOWLEDGED"
    RESOLVED = "RESOLVED"


class ResolvedBy(StrEnum):
    CALL = "CALL"  # a /resolve call
    CLEAR = "CLEAR"  # by itself: the condition was clear for the rule's resolveAfterSeconds


class SubjectKind(StrEnum):
    WEBHOOK = "WEBHOOK"
    DESTINATION = "DESTINATION"
    EVENT = "EVENT"
    TABLE = "TABLE"


class ItemKind(StrEnum):
    EXECUTION = "EXECUTION"  # a delivery whose last attempt FAILED
    DESTINATION = "DESTINATION"  # a circuit that opened
    RUN = "RUN"  # a scheduled run that ended FAILED or MISSED
    TABLE_WRITE = "TABLE_WRITE"  # an append or svcdb write that ended FAILED
    MAINTENANCE = "MAINTENANCE"  # an automatic maintenance of the table that failed


SUBJECT_OF = {
    ConditionType.WEBHOOK_FAILURES: SubjectKind.WEBHOOK,
    ConditionType.CIRCUIT_OPEN: SubjectKind.DESTINATION,
    ConditionType.SCHEDULED_RUN: SubjectKind.EVENT,
    ConditionType.TABLE_FAILURE: SubjectKind.TABLE,
}


class WebhookFailures(RequestModel):
    """A webhook's final FAILED deliveries (retries exhausted or not retryable) reach ``count`` within
    ``withinMinutes``; without ``webhookId``, any webhook of the company (each is its own subject)."""

    type: Literal[ConditionType.WEBHOOK_FAILURES]
    webhook_id: OptionalId = None
    count: int = Field(ge=1, le=1_000_000)
    within_minutes: int = Field(ge=1, le=1_440)


class CircuitOpen(RequestModel):
    """A destination's circuit (``resourceId``, or any handler resource of the company) stays OPEN
    ``forSeconds``."""

    type: Literal[ConditionType.CIRCUIT_OPEN]
    resource_id: OptionalId = None
    for_seconds: int = Field(ge=0, le=86_400)


class ScheduledRunFailed(RequestModel):
    """A scheduled event's run (``eventId``, or any event of the company) ends FAILED (dead-lettered when the
    event has a deadLetterConfig) or MISSED."""

    type: Literal[ConditionType.SCHEDULED_RUN]
    event_id: OptionalId = None


class TableFailure(RequestModel):
    """A table's writer (an append or svcdb write ending FAILED) or its automatic maintenance fails
    (``tableId``, or any table of the company)."""

    type: Literal[ConditionType.TABLE_FAILURE]
    table_id: OptionalId = None


Condition = Annotated[
    WebhookFailures | CircuitOpen | ScheduledRunFailed | TableFailure, Field(discriminator="type")
]


def subject_of(condition: WebhookFailures | CircuitOpen | ScheduledRunFailed | TableFailure) -> str | None:
    """The one subject a condition names, or None for any subject of its kind in the company."""
    if isinstance(condition, WebhookFailures):
        return condition.webhook_id
    if isinstance(condition, CircuitOpen):
        return condition.resource_id
    if isinstance(condition, ScheduledRunFailed):
        return condition.event_id
    return condition.table_id


class CreateRuleRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.CREATE_RULE)

    name: str = Field(min_length=1, max_length=200)
    condition: Condition
    resolve_after_seconds: int = Field(DEFAULT_RESOLVE_AFTER_SECONDS, ge=1, le=MAX_RESOLVE_AFTER_SECONDS)
    # A handler resource of the company (an http(s) or kafka:// endpoint) notified once per alert and state.
    notify: OptionalId = None
    enabled: bool = True

    @field_validator("resolve_after_seconds", "enabled", mode="before")
    @classmethod
    def _null_is_absent(cls, value: Any, info: Any) -> Any:
        # An optional field sent as null means the same as one left out (interface.md, Conventions).
        if value is None:
            return True if info.field_name == "enabled" else DEFAULT_RESOLVE_AFTER_SECONDS
        return value


class RuleIdRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.RULE_ID)

    rule_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)


class UpdateRuleRequest(RequestModel):
    """The fields to change; an omitted field is left as it is, ``notify: null`` stops notifications.
    ``rotateSecret`` makes a new signing secret, answered once."""

    model_config = ConfigDict(json_schema_extra=examples.UPDATE_RULE)

    rule_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    name: str | None = Field(None, min_length=1, max_length=200)
    condition: Condition | None = None
    resolve_after_seconds: int | None = Field(None, ge=1, le=MAX_RESOLVE_AFTER_SECONDS)
    notify: OptionalId = None
    enabled: bool | None = None
    rotate_secret: bool = False

    @model_validator(mode="after")
    def _changes_something(self) -> UpdateRuleRequest:
        changed = self.model_fields_set - {"rule_id"}
        if not changed:
            raise ValueError(
                "name at least one of name, condition, resolveAfterSeconds, notify, enabled, rotateSecret"
            )
        for name in ("name", "condition", "resolve_after_seconds", "enabled"):
            if name in changed and getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null: leave it out to keep it")
        return self


class Rule(WireModel):
    rule_id: str
    name: str
    condition: Condition
    resolve_after_seconds: int
    notify: str | None
    enabled: bool
    created_at: str
    updated_at: str


class RuleAnswer(WireModel):
    rule: Rule
    # The signing secret (``whsec_<base64>``): answered by create and by an update that rotates it, never
    # again.
    secret: str | None = None
    errors: list[str] = Field(default_factory=list)


class RulesAnswer(WireModel):
    rules: list[Rule]
    errors: list[str] = Field(default_factory=list)


class DeletedRuleAnswer(WireModel):
    deleted: bool = True
    errors: list[str] = Field(default_factory=list)


class AlertsRequest(RequestModel):
    """Alerts of the company, the most recently opened first; ``cursor`` is the previous page's
    ``nextCursor``."""

    model_config = ConfigDict(json_schema_extra=examples.ALERTS)

    state: AlertState | None = None
    rule_id: OptionalId = None
    limit: int = Field(50, ge=1, le=MAX_PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=200)

    @field_validator("limit", mode="before")
    @classmethod
    def _null_limit(cls, value: Any) -> Any:
        return 50 if value is None else value


class AlertIdRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.ALERT_ID)

    alert_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)


class AlertReplayRequest(RequestModel):
    """Re-run the alert's failed deliveries (the executions it lists) through ``/custom-webhooks/replay``."""

    model_config = ConfigDict(json_schema_extra=examples.REPLAY)

    alert_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    dry_run: bool = False

    @field_validator("dry_run", mode="before")
    @classmethod
    def _null_dry_run(cls, value: Any) -> Any:
        return False if value is None else value


class Subject(WireModel):
    kind: SubjectKind
    id: str


class AlertItem(WireModel):
    kind: ItemKind
    id: str
    # When it failed (a delivery's last attempt ended, a run ended, a write failed, a circuit opened).
    at: str
    detail: str | None = None


class Alert(WireModel):
    alert_id: str
    rule_id: str
    condition: ConditionType
    subject: Subject
    state: AlertState
    # Failures counted while the alert was not resolved (for CIRCUIT_OPEN: the times the circuit opened).
    count: int
    first_item_at: str | None
    last_item_at: str | None
    opened_at: str
    acknowledged_at: str | None = None
    resolved_at: str | None = None
    resolved_by: ResolvedBy | None = None
    # Answered by /alerts/get only: the first MAX_ITEMS items.
    items: list[AlertItem] | None = None


class AlertAnswer(WireModel):
    alert: Alert
    errors: list[str] = Field(default_factory=list)


class AlertsAnswer(WireModel):
    alerts: list[Alert]
    next_cursor: str | None = None
    errors: list[str] = Field(default_factory=list)


class NotificationType(StrEnum):
    OPENED = "alert.opened"
    ACKNOWLEDGED = "alert.acknowledged"
    RESOLVED = "alert.resolved"


NOTIFICATION_OF = {
    AlertState.OPEN: NotificationType.OPENED,
    AlertState.ACKNOWLEDGED: NotificationType.ACKNOWLEDGED,
    AlertState.RESOLVED: NotificationType.RESOLVED,
}


class NotificationData(WireModel):
    alert_id: str
    rule_id: str
    rule_name: str
    condition: ConditionType
    state: AlertState
    subject: Subject
    count: int
    first_item_at: str | None
    last_item_at: str | None
    opened_at: str
    acknowledged_at: str | None
    resolved_at: str | None
    resolved_by: ResolvedBy | None
    summary: str


class Notification(WireModel):
    """The body of a notification, as Standard Webhooks lays one out: ``type``, ``timestamp``, ``data``."""

    type: NotificationType
    timestamp: str
    data: NotificationData
