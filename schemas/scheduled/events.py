"""Wire models of the scheduled-events client API (``{base_url}/clients/scheduled-events/...``).

An event's action (``actionType`` and its config) is in schemas/scheduled/actions.py.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import scheduled_catchup as field_examples
from schemas.examples import scheduled_events as examples
from schemas.scheduled.actions import (
    CONFIG_FIELD,
    WIRE_FIELD,
    ActionConfig,
    ActionType,
    AgentConfig,
    SvcDbConfig,
    ToolConfig,
)
from schemas.scheduled.catchup import (
    DEFAULT_CATCHUP_WINDOW_SECONDS,
    CatchupFields,
    FlexibleTimeWindow,
    FlexMode,
    OverlapPolicy,
)
from schemas.scheduled.controls import ActionAfterCompletion, RunTrigger, WindowFields
from schemas.scheduled.retries import DeadLetterConfig, RetryFields, RetryPolicy, RunAttempt
from schemas.scheduled.schedules import ScheduleSpec

EVENT_NAME_REQUIRED = "Event name is required"
NOT_FOUND = "Scheduled event not found"
FOREIGN_TARGET = "Target resource does not belong to your company"
MAX_RUNS_PAGE = 100


class RunStatus(StrEnum):
    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"
    # A fire the scheduler passed over while it stood still (core/schedules/catchup.py): never run.
    MISSED = "MISSED"


class _EventFields(WindowFields, RetryFields, CatchupFields):
    description: str | None = Field(None, max_length=2000)
    schedule_spec: ScheduleSpec | None = None
    cron_expression: str | None = Field(None, max_length=300)
    timezone: str | None = Field(None, max_length=100)
    agent_config: AgentConfig | None = None
    tool_config: ToolConfig | None = None
    svc_db_config: SvcDbConfig | None = None

    @model_validator(mode="after")
    def _one_schedule_form(self) -> _EventFields:
        if self.schedule_spec is not None and self.cron_expression is not None:
            raise ValueError("send either scheduleSpec or cronExpression, not both")
        if self.schedule_spec is not None and self.timezone is not None:
            raise ValueError("timezone goes inside scheduleSpec; top-level timezone is for cronExpression")
        configs = [name for name in CONFIG_FIELD.values() if getattr(self, name) is not None]
        if len(configs) > 1:
            raise ValueError(f"send only the config matching actionType, not {' and '.join(configs)}")
        return self

    def config(self) -> ActionConfig | None:
        found: ActionConfig | None = self.agent_config or self.tool_config or self.svc_db_config
        return found

    def config_field(self) -> str | None:
        return next((name for name in CONFIG_FIELD.values() if getattr(self, name) is not None), None)


def _check_config_matches(action: ActionType | None, present: str | None) -> None:
    if action is not None and present is not None and CONFIG_FIELD[action] != present:
        raise ValueError(f"{WIRE_FIELD[present]} does not match actionType {action.value}")


class CreateEventRequest(_EventFields):
    model_config = ConfigDict(json_schema_extra=field_examples.CREATE_EVENT)
    event_name: str | None = Field(None, max_length=200)
    enabled: bool = True
    action_type: ActionType

    @model_validator(mode="after")
    def _form_and_config(self) -> CreateEventRequest:
        if self.schedule_spec is None and self.cron_expression is None:
            raise ValueError("a schedule is required: send scheduleSpec, or cronExpression with timezone")
        _check_config_matches(self.action_type, self.config_field())
        return self


class UpdateEventRequest(_EventFields):
    """Every field but the id is optional; an omitted field keeps its stored value."""

    model_config = ConfigDict(json_schema_extra=field_examples.UPDATE_EVENT)

    scheduled_event_id: str = Field(min_length=1, max_length=100)
    event_name: str | None = Field(None, max_length=200)
    enabled: bool | None = None
    action_type: ActionType | None = None

    @model_validator(mode="after")
    def _config_for_action(self) -> UpdateEventRequest:
        if self.action_type is not None and self.config_field() is None:
            raise ValueError(
                f"actionType {self.action_type.value} needs its config: "
                f"{WIRE_FIELD[CONFIG_FIELD[self.action_type]]}"
            )
        _check_config_matches(self.action_type, self.config_field())
        return self


class EventIdRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.EVENT_ID_ONLY)
    scheduled_event_id: str = Field(min_length=1, max_length=100)


class ToggleRequest(EventIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.TOGGLE_EVENT)
    enabled: bool = Field(strict=True)


class EmptyRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.EMPTY)


class RunsRequest(EventIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.EVENT_RUNS)
    page: int = Field(0, ge=0, le=100_000)
    size: int = Field(25, ge=1, le=MAX_RUNS_PAGE)
    status: RunStatus | None = None


class ScheduledEvent(WireModel):
    event_id: str
    company_id: str
    owner_id: str
    event_name: str
    description: str | None = None
    schedule_spec: dict[str, Any]
    cron_expression: str
    timezone: str | None = None
    enabled: bool
    action_type: ActionType
    sharing_level: str = "COMPANY"
    company_permission_level: str = "ADMIN"
    user_permission: str = "ADMIN"
    agent_config: dict[str, Any] | None = None
    tool_config: dict[str, Any] | None = None
    svc_db_config: dict[str, Any] | None = None
    schedule_arn: str
    next_fire_at: str | None = None
    last_fired_at: str | None = None
    start_date: str | None = None
    end_date: str | None = None
    action_after_completion: ActionAfterCompletion = ActionAfterCompletion.NONE
    paused_until: str | None = None
    retry_policy: RetryPolicy = Field(default_factory=RetryPolicy)
    dead_letter_config: DeadLetterConfig = Field(default_factory=lambda: DeadLetterConfig(enabled=False))
    catchup_window_seconds: int = DEFAULT_CATCHUP_WINDOW_SECONDS
    overlap_policy: OverlapPolicy = OverlapPolicy.SKIP
    flexible_time_window: FlexibleTimeWindow = Field(
        default_factory=lambda: FlexibleTimeWindow(mode=FlexMode.OFF)
    )
    created_at: str
    updated_at: str
    deleted_at: str | None = None


class _Answer(WireModel):
    errors: list[str] = Field(default_factory=list)


class ListAnswer(_Answer):
    owned_events: list[ScheduledEvent]
    company_shared_events: list[ScheduledEvent] = Field(default_factory=list)
    shared_with_me_events: list[ScheduledEvent] = Field(default_factory=list)


class EventAnswer(_Answer):
    scheduled_event: ScheduledEvent
    permission: str = "ADMIN"


class CreatedAnswer(_Answer):
    scheduled_event: ScheduledEvent
    event_id: str
    schedule_arn: str


class UpdatedAnswer(_Answer):
    scheduled_event: ScheduledEvent


class ToggledAnswer(_Answer):
    event_id: str
    enabled: bool


class DeletedAnswer(_Answer):
    event_id: str
    deleted_at: str


class RunEntry(WireModel):
    run_id: str
    event_id: str
    scheduled_for: str
    status: RunStatus
    action_type: ActionType
    attempt_number: int
    trigger: RunTrigger = RunTrigger.SCHEDULE
    queued_at: str
    started_at: str | None = None
    ended_at: str | None = None
    duration_ms: int | None = None
    lateness_ms: int | None = None
    response: Any = None
    error_message: str | None = None
    # Every attempt of the run, oldest first; the last is the run's current state.
    attempts: list[RunAttempt] = Field(default_factory=list)


class RunsAnswer(_Answer):
    runs: list[RunEntry]
    page: int
    size: int
    total_elements: int
    total_pages: int
