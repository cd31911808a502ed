"""Wire models of the transform test: ``POST /svc_poweruser/custom-webhooks/test-transform``.

A sample request goes through a webhook's validation script, content filter and transform, as a trigger's
would, and nothing is recorded or delivered (docs/interface.md, "Testing a transform").
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import transform_trial as examples
from schemas.webhooks import MAX_BODY_BYTES

MAX_SAMPLE_HEADERS = 100


class TransformTrialRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.TEST_TRANSFORM)

    webhook_id: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="A saved webhook (READ on it); its stored configuration",
    )
    webhook_config: dict[str, Any] | None = Field(
        None, description="A configuration as /create takes it, tested unsaved (in place of the stored one)"
    )
    body: str = Field(description="The sample request body, as a trigger would receive it")
    headers: dict[str, str] = Field(
        default_factory=dict,
        max_length=MAX_SAMPLE_HEADERS,
        description="The sample's headers (names in any case); content-type decides how the body is read",
    )
    query_params: dict[str, str] = Field(default_factory=dict, max_length=MAX_SAMPLE_HEADERS)

    @model_validator(mode="after")
    def _named_and_bounded(self) -> TransformTrialRequest:
        if self.webhook_id is None and self.webhook_config is None:
            raise ValueError("send webhookId, webhookConfig or both")
        if len(self.body.encode("utf-8")) > MAX_BODY_BYTES:
            raise ValueError(f"body exceeds the trigger's limit of {MAX_BODY_BYTES} bytes")
        return self


class TransformTrialAnswer(WireModel):
    transform_type: str = Field(description="JSONPATH or SVC_SCRIPT")
    validated: bool = Field(description="False when the validation script refused the sample")
    validation_message: str | None = Field(None, description="The validation script's refusal")
    filtered: bool = Field(False, description="The content filter dropped the sample: no transform ran")
    filter_note: str | None = None
    variables: dict[str, str] | None = Field(None, description="The variables the transform made")
    transform_error: str | None = Field(
        None, description="Why the transform failed, as a delivery records it"
    )
    duration_ms: float | None = Field(None, description="How long the transform took")
    errors: list[str] = Field(default_factory=list)
