"""Wire models of a scheduled event's action (``actionType`` and its ``agentConfig``, ``toolConfig`` or
``svcDbConfig``), which schemas/scheduled/events.py's create and update requests carry.

The required target ids (agentId, toolId, targetTableId) are optional here on purpose: the spec gives a
verbatim message for a missing one ("Tool ID is required for INVOKE_TOOL action"), which the route
raises through :func:`missing_target_message` instead of pydantic's generic "field required".
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

from schemas.base import RequestModel
from schemas.versions import VersionSelector
from schemas.webhooks import TypedValue, WhereGroup


class ActionType(StrEnum):
    INVOKE_AGENT = "INVOKE_AGENT"
    INVOKE_TOOL = "INVOKE_TOOL"
    UPDATE_SVCDB = "UPDATE_SVCDB"


class InputItem(RequestModel):
    input_type: str = Field(min_length=1, max_length=50)
    content: Any


class AgentExecutionRequest(RequestModel):
    agent_id: str | None = Field(None, max_length=100)
    input: list[InputItem] = Field(min_length=1, max_length=100)
    environment_variables: dict[str, str] | None = None


class AgentConfig(RequestModel):
    agent_execution_request: AgentExecutionRequest | None = None
    continue_on_error: bool = False
    description: str | None = Field(None, max_length=2000)
    # Which version of the agent runs (spec "Versioning"); absent: the latest PUBLISHED version.
    version: VersionSelector | None = None


class ToolExecutionRequest(RequestModel):
    tool_id: str | None = Field(None, max_length=100)
    variables: dict[str, str] | None = None
    environment_variables: dict[str, str] | None = None


class ToolConfig(RequestModel):
    tool_execution_request: ToolExecutionRequest | None = None
    continue_on_error: bool = False
    description: str | None = Field(None, max_length=2000)
    # Which version of the tool runs (spec "Versioning"); absent: the latest PUBLISHED version.
    version: VersionSelector | None = None


class SvcDbConfig(RequestModel):
    operation: Literal["INSERT", "UPDATE"]
    target_table_id: str | None = Field(None, max_length=100)
    values: dict[str, TypedValue] = Field(min_length=1)
    record_id: int | None = None
    where_groups: list[WhereGroup] | None = Field(None, min_length=1, max_length=20)
    groups_logical_operator: Literal["AND", "OR"] | None = None
    skip_if_target_table_missing: bool = False
    description: str | None = Field(None, max_length=2000)

    @model_validator(mode="after")
    def _target_rules(self) -> SvcDbConfig:
        if self.record_id is not None and self.where_groups is not None:
            raise ValueError("recordId and whereGroups are mutually exclusive")
        if self.groups_logical_operator is not None and self.where_groups is None:
            raise ValueError("groupsLogicalOperator is only allowed with whereGroups")
        targeted = self.record_id is not None or self.where_groups is not None
        if self.operation == "UPDATE" and not targeted:
            raise ValueError("UPDATE needs recordId or whereGroups")
        if self.operation == "INSERT" and targeted:
            raise ValueError("INSERT takes neither recordId nor whereGroups")
        return self


ActionConfig = AgentConfig | ToolConfig | SvcDbConfig

CONFIG_FIELD: dict[ActionType, str] = {
    ActionType.INVOKE_AGENT: "agent_config",
    ActionType.INVOKE_TOOL: "tool_config",
    ActionType.UPDATE_SVCDB: "svc_db_config",
}
# The same fields as the wire names them, for the messages that name one.
WIRE_FIELD = {"agent_config": "agentConfig", "tool_config": "toolConfig", "svc_db_config": "svcDbConfig"}


def target_id(action: ActionType, config: ActionConfig | None) -> str | None:
    """The agent, tool or table the action runs against, if the config names one."""
    if isinstance(config, AgentConfig) and config.agent_execution_request is not None:
        return config.agent_execution_request.agent_id or None
    if isinstance(config, ToolConfig) and config.tool_execution_request is not None:
        return config.tool_execution_request.tool_id or None
    if isinstance(config, SvcDbConfig):
        return config.target_table_id or None
    return None


def missing_target_message(action: ActionType) -> str:
    noun = {
        ActionType.INVOKE_AGENT: "Agent",
        ActionType.INVOKE_TOOL: "Tool",
        ActionType.UPDATE_SVCDB: "Table",
    }
    return f"{noun[action]} ID is required for {action.value} action"
