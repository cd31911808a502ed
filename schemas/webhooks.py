"""Wire models of the custom-webhook management API (spec: "C. Custom webhook resources")."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import AwareDatetime, ConfigDict, Field, field_validator, model_validator

from schemas.base import RequestModel, WireModel
from schemas.enums import AccessLevel
from schemas.examples import webhooks as examples
from schemas.filters import FilterConfig
from schemas.verification import VerificationConfig
from schemas.versions import VersionSelector

MAX_SCRIPT_CHARS = 64 * 1024
# The interface's limit on a trigger's body ("up to 10 MB"), in bytes as received; a replay re-sends a
# stored body, so it is within this too.
MAX_BODY_BYTES = 10 * 1024 * 1024
# A history narrowed by a time range or a body text reads at most this many entries (the newest of the
# range): docs/interface.md, "Execution history".
HISTORY_SEARCH_LIMIT = 5_000
_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,99}$")


_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")


class SharingLevel(StrEnum):
    PRIVATE = "PRIVATE"
    SPECIFIC_MEMBER = "SPECIFIC_MEMBER"
    COMPANY = "COMPANY"


class WebhookResourceType(StrEnum):
    TOOL = "TOOL"
    AGENT = "AGENT"
    MANAGER = "MANAGER"
    SVCDB = "SVCDB"


class ExecutionStatus(StrEnum):
    QUEUED = "QUEUED"
    PROCESSING = "PROCESSING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    TRANSFORM_FAILED = "TRANSFORM_FAILED"
    # The delivery did not match the webhook's filterConfig: recorded, never queued, no handler call.
    FILTERED = "FILTERED"


class ValidationConfig(RequestModel):
    enable_validation: bool = False
    validation_script: str | None = Field(None, max_length=MAX_SCRIPT_CHARS)

    @model_validator(mode="after")
    def _script_when_enabled(self) -> ValidationConfig:
        if self.enable_validation and not (self.validation_script or "").strip():
            raise ValueError("validationScript is required when enableValidation is true")
        return self


class PayloadTransformConfig(RequestModel):
    transform_type: Literal["JSONPATH", "SVC_SCRIPT"] = "JSONPATH"
    json_path_mappings: dict[str, str] | None = None
    transform_script: str | None = Field(None, max_length=MAX_SCRIPT_CHARS)

    @field_validator("json_path_mappings")
    @classmethod
    def _variable_names(cls, mappings: dict[str, str] | None) -> dict[str, str] | None:
        for name in mappings or {}:
            if not _VARIABLE_NAME.match(name):
                raise ValueError(f"invalid variable name {name!r}: use letters, digits, _ . - (not first)")
        return mappings

    @model_validator(mode="after")
    def _fields_match_type(self) -> PayloadTransformConfig:
        if self.transform_type == "SVC_SCRIPT" and not (self.transform_script or "").strip():
            raise ValueError("transformScript is required when transformType is SVC_SCRIPT")
        if self.transform_type == "JSONPATH" and self.transform_script:
            raise ValueError("transformScript is only used with transformType SVC_SCRIPT")
        if self.transform_type == "SVC_SCRIPT" and self.json_path_mappings:
            raise ValueError("jsonPathMappings is only used with transformType JSONPATH")
        return self


class TypedValue(RequestModel):
    """A column value: ``columnType`` plus the one value field that matches it."""

    column_type: str = Field(min_length=1, max_length=50)
    text_value: str | None = None
    integer_value: int | str | None = None
    float_value: float | str | None = None
    boolean_value: bool | str | None = None
    multi_select_value: list[str] | None = None
    file_path: str | None = None
    variable_value: str | None = None

    @model_validator(mode="after")
    def _one_value(self) -> TypedValue:
        present = [name for name in _VALUE_FIELDS if getattr(self, name) is not None]
        if len(present) > 1:
            raise ValueError("a typed value carries exactly one value field")
        return self


_VALUE_FIELDS = (
    "text_value",
    "integer_value",
    "float_value",
    "boolean_value",
    "multi_select_value",
    "file_path",
    "variable_value",
)


class ConditionOperator(StrEnum):
    EQUALS = "EQUALS"
    NOT_EQUALS = "NOT_EQUALS"
    GREATER_THAN = "GREATER_THAN"
    GREATER_THAN_OR_EQUAL = "GREATER_THAN_OR_EQUAL"
    LESS_THAN = "LESS_THAN"
    LESS_THAN_OR_EQUAL = "LESS_THAN_OR_EQUAL"
    CONTAINS = "CONTAINS"
    IN = "IN"
    IS_NULL = "IS_NULL"
    IS_NOT_NULL = "IS_NOT_NULL"


class WhereCondition(RequestModel):
    column_name: str = Field(min_length=1, max_length=200)
    operator: ConditionOperator
    value: Any = None


class WhereGroup(RequestModel):
    logical_operator: Literal["AND", "OR"] = "AND"
    conditions: list[WhereCondition] = Field(min_length=1, max_length=50)


class WebhookSvcDbConfig(RequestModel):
    operation: Literal["INSERT", "UPDATE", "UPSERT", "DELETE"]
    target_table_id: str = Field(min_length=1, max_length=100)
    values: dict[str, TypedValue] = Field(default_factory=dict)
    record_id: str | None = Field(None, min_length=1, max_length=200)
    where_groups: list[WhereGroup] | None = Field(None, min_length=1, max_length=20)
    groups_logical_operator: Literal["AND", "OR"] | None = None
    description: str | None = Field(None, max_length=2000)

    @model_validator(mode="after")
    def _target_rules(self) -> WebhookSvcDbConfig:
        if self.record_id is not None and self.where_groups is not None:
            raise ValueError("recordId and whereGroups are mutually exclusive")
        if self.groups_logical_operator is not None and self.where_groups is None:
            raise ValueError("groupsLogicalOperator is only allowed with whereGroups")
        targeted = self.record_id is not None or self.where_groups is not None
        if self.operation in ("UPDATE", "DELETE") and not targeted:
            raise ValueError(f"{self.operation} needs recordId or whereGroups")
        if self.operation == "INSERT" and targeted:
            raise ValueError("INSERT takes neither recordId nor whereGroups")
        if self.operation != "DELETE" and not self.values:
            raise ValueError(f"{self.operation} needs at least one entry in values")
        if self.operation == "DELETE" and self.values:
            raise ValueError("DELETE takes no values")
        return self


# Which resourceExecutionConfig fields each resource type accepts (spec table "resourceExecutionConfig").
# ``version`` (which version of the handler runs, spec "Versioning") is svc's addition for the three handlers.
FIELDS_BY_TYPE: dict[str, frozenset[str]] = {
    "TOOL": frozenset({"resource_id", "variables", "environment_variables", "private_variables", "version"}),
    "AGENT": frozenset(
        {"resource_id", "environment_variables", "prompt_template_variables", "user_message", "version"}
    ),
    "MANAGER": frozenset(
        {"resource_id", "environment_variables", "prompt_template_variables", "user_message", "version"}
    ),
    "SVCDB": frozenset({"svc_db_config"}),
}
_OPTIONAL_INPUTS = (
    "resource_id",
    "variables",
    "environment_variables",
    "prompt_template_variables",
    "private_variables",
    "user_message",
    "svc_db_config",
    "version",
)


class ResourceExecutionConfig(RequestModel):
    resource_type: WebhookResourceType
    resource_id: str | None = Field(None, min_length=1, max_length=100)
    variables: dict[str, Any] | None = None
    environment_variables: dict[str, str] | None = None
    prompt_template_variables: dict[str, str] | None = None
    private_variables: dict[str, str] | None = None
    user_message: str | None = Field(None, max_length=100_000)
    svc_db_config: WebhookSvcDbConfig | None = None
    version: VersionSelector | None = None

    @model_validator(mode="after")
    def _fields_for_type(self) -> ResourceExecutionConfig:
        allowed = FIELDS_BY_TYPE[self.resource_type.value]
        misplaced = [
            name for name in _OPTIONAL_INPUTS if getattr(self, name) is not None and name not in allowed
        ]
        if misplaced:
            names = ", ".join(type(self).model_fields[name].alias or name for name in misplaced)
            raise ValueError(f"{names} not allowed for resourceType {self.resource_type.value}")
        if self.resource_type is WebhookResourceType.SVCDB and self.svc_db_config is None:
            raise ValueError("svcDbConfig is required for resourceType SVCDB")
        if self.resource_type is not WebhookResourceType.SVCDB and self.resource_id is None:
            raise ValueError(f"resourceId is required for resourceType {self.resource_type.value}")
        return self


class ExecutionSettings(RequestModel):
    """How a delivery's handler is called and retried: the only place their defaults are declared."""

    timeout_seconds: int = Field(300, ge=1, le=900)
    max_retries: int = Field(3, ge=0, le=10)
    retry_delay_seconds: int = Field(5, ge=0, le=3600)


# Trigger deduplication (Idempotency-Key or the provider's delivery id): how long a key is remembered.
DEFAULT_DEDUP_WINDOW_SECONDS = 24 * 60 * 60
MIN_DEDUP_WINDOW_SECONDS = 60
MAX_DEDUP_WINDOW_SECONDS = 7 * 24 * 60 * 60


class DeduplicationConfig(RequestModel):
    """A delivery whose key (``Idempotency-Key``, or the verified provider's delivery id) this webhook saw
    within ``windowSeconds`` answers 200 ``duplicate: true`` with the first delivery's executionId."""

    model_config = ConfigDict(json_schema_extra=examples.DEDUPLICATION)
    enabled: bool = True
    window_seconds: int = Field(
        DEFAULT_DEDUP_WINDOW_SECONDS, ge=MIN_DEDUP_WINDOW_SECONDS, le=MAX_DEDUP_WINDOW_SECONDS
    )


class WebhookConfig(RequestModel):
    name: str = Field(min_length=1, max_length=200)
    description: str | None = Field(None, max_length=2000)
    validation_config: ValidationConfig = Field(default_factory=ValidationConfig)
    payload_transform_config: PayloadTransformConfig = Field(default_factory=PayloadTransformConfig)
    resource_execution_config: ResourceExecutionConfig | None = None
    execution_settings: ExecutionSettings = Field(default_factory=ExecutionSettings)
    # Header names whose values the execution history shows as [REDACTED] (besides the credentials that are
    # always redacted: Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key).
    secret_headers: list[str] | None = Field(None, max_length=50)
    # The provider signature a delivery must carry (checked after the key) and the content filter it must
    # match to be queued (checked after the validation script); see docs/webhooks.md.
    verification_config: VerificationConfig | None = None
    filter_config: FilterConfig | None = None
    # Duplicate deliveries (same Idempotency-Key or provider delivery id) within the window are answered with
    # the first one's executionId and not queued; on by default (docs/interface.md, "Deduplication").
    deduplication: DeduplicationConfig | None = None

    @field_validator("secret_headers")
    @classmethod
    def _header_names(cls, names: list[str] | None) -> list[str] | None:
        for name in names or ():
            if not _HEADER_NAME.match(name):
                raise ValueError(f"invalid header name {name[:100]!r}")
        return names

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("Webhook must have a name in the configuration")
        return name


class StoredWebhookConfig(WireModel):
    """A webhook's configuration as the database keeps it (``ingress/webhooks/config.validated_config`` wrote
    it), read once per cached trigger target and once per webhook in a worker's claim: the trigger, the replay
    and the worker take its parts from here, so a default is never written again where it is used.

    The parts the pipeline runs are typed by the request models above. Three stay their stored JSON: the
    handler's part (the handler request is built from that form), the sealed ``verificationConfig`` and the
    ``filterConfig`` (both prepared once per target by the trigger's screens). Unknown keys are ignored: a
    stored configuration is read, not refused."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    name: str = ""
    validation_config: ValidationConfig = Field(default_factory=ValidationConfig)
    payload_transform_config: PayloadTransformConfig = Field(default_factory=PayloadTransformConfig)
    resource_execution_config: dict[str, Any] | None = None
    execution_settings: ExecutionSettings = Field(default_factory=ExecutionSettings)
    secret_headers: list[str] | None = None
    verification_config: dict[str, Any] | None = None
    filter_config: dict[str, Any] | None = None

    def validation_script(self) -> str | None:
        """The script a delivery must pass, or None when validation is off."""
        validation = self.validation_config
        return validation.validation_script if validation.enable_validation else None

    def resource(self) -> tuple[str | None, str | None]:
        """The handler a delivery is recorded with: (resourceType, resourceId; for SVCDB the target table)."""
        execution = self.resource_execution_config or {}
        kind = execution.get("resourceType")
        if kind == "SVCDB":
            return kind, (execution.get("svcDbConfig") or {}).get("targetTableId")
        return kind, execution.get("resourceId")


# Requests


class CreateWebhookRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.CREATE_WEBHOOK)
    webhook_config: dict[str, Any]


class WebhookIdRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.WEBHOOK_ID_ONLY)
    webhook_id: str = Field(min_length=1, max_length=100)


class UpdateWebhookRequest(WebhookIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.UPDATE_WEBHOOK)
    webhook_config: dict[str, Any]
    is_enabled: bool | None = None


class HistoryRequest(WebhookIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.EXECUTION_HISTORY)
    status: ExecutionStatus | None = None
    page: int = Field(0, ge=0, le=1_000_000)
    size: int = Field(20, ge=1, le=100)
    # svc's additions: a range of queuedAt (``from`` is a Python keyword, hence the alias; the timestamps
    # carry their offset), a plain substring of the stored body, one execution's attempts.
    from_: AwareDatetime | None = Field(None, alias="from")
    to: AwareDatetime | None = None
    body_contains: str | None = Field(None, min_length=1, max_length=200)
    execution_id: str | None = Field(None, min_length=1, max_length=100)

    @model_validator(mode="after")
    def _ordered(self) -> HistoryRequest:
        if self.from_ is not None and self.to is not None and self.from_ >= self.to:
            raise ValueError("from must be before to")
        return self

    @property
    def searched(self) -> bool:
        """Narrowed by more than the status: read through the bounded search, not the per-status counts."""
        return any(
            value is not None for value in (self.from_, self.to, self.body_contains, self.execution_id)
        )


class ShareUser(RequestModel):
    user_email: str | None = Field(None, max_length=320)
    user_id: str | None = Field(None, max_length=100)
    access_level: AccessLevel | None = None

    @model_validator(mode="after")
    def _identified(self) -> ShareUser:
        if not self.user_email and not self.user_id:
            raise ValueError("each user entry needs userEmail or userId")
        return self


class ShareRequest(WebhookIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.SHARE_WEBHOOK)
    level: SharingLevel
    access_level: AccessLevel | None = None
    users_to_add: list[ShareUser] | None = Field(None, max_length=500)
    users_to_remove: list[ShareUser] | None = Field(None, max_length=500)

    @model_validator(mode="after")
    def _level_rules(self) -> ShareRequest:
        if self.level is SharingLevel.COMPANY and self.access_level is None:
            raise ValueError("accessLevel is required when level is COMPANY")
        if self.level is SharingLevel.SPECIFIC_MEMBER and not self.users_to_add and not self.users_to_remove:
            raise ValueError("usersToAdd is required when level is SPECIFIC_MEMBER")
        for user in self.users_to_add or []:
            if user.access_level is None:
                raise ValueError("each entry of usersToAdd needs accessLevel")
        return self


# Answers


class Webhook(WireModel):
    id: str
    company_id: str
    owner_id: str
    webhook_config: dict[str, Any]
    api_key_id: str
    is_enabled: bool
    sharing_level: SharingLevel
    company_permission_level: AccessLevel | None
    created_at: str
    updated_at: str
    user_access_level: AccessLevel


class WebhookAnswer(WireModel):
    webhook: Webhook
    errors: list[str] = Field(default_factory=list)


class CreatedWebhookAnswer(WebhookAnswer):
    api_key: str


class WebhookListAnswer(WireModel):
    webhooks: list[Webhook]
    errors: list[str] = Field(default_factory=list)


class DeletedAnswer(WireModel):
    deleted: bool
    errors: list[str] = Field(default_factory=list)


class ApiKeyAnswer(WireModel):
    api_key: str
    errors: list[str] = Field(default_factory=list)


class DirectShareEntry(WireModel):
    user_id: str
    user_email: str
    access_level: AccessLevel


class SharesAnswer(WireModel):
    """``/get-shares`` (svc's addition): the webhook's sharing and every member shared with it directly."""

    sharing_level: SharingLevel
    company_permission_level: AccessLevel | None = None
    direct_shares: list[DirectShareEntry]
    errors: list[str] = Field(default_factory=list)


class SharedAnswer(WireModel):
    updated: bool
    errors: list[str] = Field(default_factory=list)


class ExecutionDetails(WireModel):
    webhook_name: str
    http_method: str
    source_ip: str | None
    request_headers: str
    request_query_params: str | None = None
    request_payload: str
    # A body kept in the object store whose object is gone or damaged: why ``request_payload`` is empty.
    # Null when the body is there (docs/webhooks.md, "Large bodies by reference").
    request_payload_error: str | None = None
    transform_type: str
    transformed_variables: str | None
    transform_error: str | None
    resource_request_json: str | None
    resource_response_json: str | None
    error_message: str | None
    # A replay (/replay) names the execution it re-ran; null for a delivery the trigger received.
    replay_of: str | None = None
    # The W3C trace id of the delivery (the caller's traceparent, continued, or a new trace); null for
    # deliveries recorded before tracing.
    trace_id: str | None = None


class ExecutionEntry(WireModel):
    id: str
    execution_id: str
    webhook_id: str
    resource_type: str | None
    resource_id: str | None
    queued_at: str
    started_at: str | None
    ended_at: str | None
    duration_ms: int | None
    status: ExecutionStatus
    attempt_number: int
    execution_details: ExecutionDetails
    # An addition to the spec: how long the attempt waited for its destination (its limits, its circuit, a
    # Retry-After) before its call started; null when it never waited. durationMs counts from the start.
    waited_ms: int | None = None


class HistoryAnswer(WireModel):
    history: list[ExecutionEntry]
    total_pages: int
    total_elements: int
    current_page: int
    # svc's addition: the range held more than HISTORY_SEARCH_LIMIT entries, and only its newest were read.
    search_limited: bool = False
    errors: list[str] = Field(default_factory=list)
