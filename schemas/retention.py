"""The retention API: a company's values, in seconds, per kind of record (docs/operations.md#retention)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import retention as examples

MIN_SECONDS = 3600
MAX_SECONDS = 10 * 365 * 24 * 3600
# A company's own value: the settings themselves take any positive number of seconds.
CompanySeconds = Annotated[int, Field(ge=MIN_SECONDS, le=MAX_SECONDS)]


class RetentionAnswer(WireModel):
    """The values in force for the caller's company: its own where it set them, the service's elsewhere."""

    history_seconds: int
    runs_seconds: int
    jobs_seconds: int


class RetentionUpdate(RequestModel):
    """Values to set, each between one hour and ten years; ``null`` goes back to the service's value, an
    omitted field is left as it is."""

    model_config = ConfigDict(json_schema_extra=examples.UPDATE_RETENTION)

    history_seconds: CompanySeconds | None = None
    runs_seconds: CompanySeconds | None = None
    jobs_seconds: CompanySeconds | None = None

    @model_validator(mode="after")
    def _names_a_value(self) -> RetentionUpdate:
        if not self.model_fields_set:
            raise ValueError("name at least one of historySeconds, runsSeconds, jobsSeconds")
        return self
