"""Wire models of webhook replay: ``POST /svc_poweruser/custom-webhooks/replay`` (issue 24).

A replay re-runs stored original requests of a webhook through its current configuration as new executions
(see docs/interface.md, "Replay"). The body names the executions either by id or by a filter.
"""

from __future__ import annotations

from typing import Any

from pydantic import AwareDatetime, ConfigDict, Field, field_validator, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import replay as examples
from schemas.webhooks import ExecutionStatus

MAX_REPLAY = 10_000
DEFAULT_LIMIT = 1_000
MAX_ID_CHARS = 100


class ReplayFilter(RequestModel):
    """Executions whose current status (that of their latest attempt) is ``status`` and whose original request
    arrived at or after ``from`` and before ``to``; an absent bound does not limit."""

    status: ExecutionStatus | None = None
    # ``from`` is a Python keyword, hence the alias. Timestamps carry their offset: a local time without one
    # would mean a different instant on every machine.
    from_: AwareDatetime | None = Field(None, alias="from")
    to: AwareDatetime | None = None

    @model_validator(mode="after")
    def _ordered(self) -> ReplayFilter:
        if self.from_ is not None and self.to is not None and self.from_ >= self.to:
            raise ValueError("filter.from must be before filter.to")
        return self


class ReplayRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.REPLAY)

    webhook_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    execution_ids: list[str] | None = Field(None, min_length=1, max_length=MAX_REPLAY)
    filter: ReplayFilter | None = None
    dry_run: bool = False
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_REPLAY)

    @field_validator("dry_run", "limit", mode="before")
    @classmethod
    def _null_is_absent(cls, value: Any, info: Any) -> Any:
        # An optional field sent as null means the same as one left out (interface.md, Conventions).
        if value is None:
            return False if info.field_name == "dry_run" else DEFAULT_LIMIT
        return value

    @field_validator("execution_ids")
    @classmethod
    def _ids(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(not item or len(item) > MAX_ID_CHARS for item in value):
            raise ValueError(f"each executionId is a non-empty string of at most {MAX_ID_CHARS} characters")
        return value

    @model_validator(mode="after")
    def _one_selection(self) -> ReplayRequest:
        if (self.execution_ids is None) == (self.filter is None):
            raise ValueError("send exactly one of executionIds and filter")
        return self


class ReplayedExecution(WireModel):
    original_execution_id: str
    # The new execution; null on a dry run, and when this one was not replayed (``error`` says why).
    execution_id: str | None = None
    # The new execution's status as recorded: QUEUED (handed to its handler at ``dueAt``), FILTERED or
    # TRANSFORM_FAILED under the webhook's current configuration.
    status: ExecutionStatus | None = None
    due_at: str | None = None
    error: str | None = None


class ReplayAnswer(WireModel):
    matched: int
    replayed: int
    executions: list[ReplayedExecution]
    # executionIds that are not executions of this webhook (unknown, another webhook's, another company's).
    not_found: list[str] = Field(default_factory=list)
    dry_run: bool = False
    errors: list[str] = Field(default_factory=list)
