from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.tool_execution_request_environment_variables_type_0 import ToolExecutionRequestEnvironmentVariablesType0
  from ..models.tool_execution_request_variables_type_0 import ToolExecutionRequestVariablesType0





T = TypeVar("T", bound="ToolExecutionRequest")



@_attrs_define
class ToolExecutionRequest:
    """ 
        Attributes:
            tool_id (None | str | Unset):
            variables (None | ToolExecutionRequestVariablesType0 | Unset):
            environment_variables (None | ToolExecutionRequestEnvironmentVariablesType0 | Unset):
     """

    tool_id: None | str | Unset = UNSET
    variables: None | ToolExecutionRequestVariablesType0 | Unset = UNSET
    environment_variables: None | ToolExecutionRequestEnvironmentVariablesType0 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_execution_request_environment_variables_type_0 import ToolExecutionRequestEnvironmentVariablesType0 # noqa: PLC0415
        from ..models.tool_execution_request_variables_type_0 import ToolExecutionRequestVariablesType0 # noqa: PLC0415
        tool_id: None | str | Unset
        if isinstance(self.tool_id, Unset):
            tool_id = UNSET
        else:
            tool_id = self.tool_id

        variables: dict[str, Any] | None | Unset
        if isinstance(self.variables, Unset):
            variables = UNSET
        elif isinstance(self.variables, ToolExecutionRequestVariablesType0):
            variables = self.variables.to_dict()
        else:
            variables = self.variables

        environment_variables: dict[str, Any] | None | Unset
        if isinstance(self.environment_variables, Unset):
            environment_variables = UNSET
        elif isinstance(self.environment_variables, ToolExecutionRequestEnvironmentVariablesType0):
            environment_variables = self.environment_variables.to_dict()
        else:
            environment_variables = self.environment_variables


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if tool_id is not UNSET:
            field_dict["toolId"] = tool_id
        if variables is not UNSET:
            field_dict["variables"] = variables
        if environment_variables is not UNSET:
            field_dict["environmentVariables"] = environment_variables

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_execution_request_environment_variables_type_0 import ToolExecutionRequestEnvironmentVariablesType0 # noqa: PLC0415
        from ..models.tool_execution_request_variables_type_0 import ToolExecutionRequestVariablesType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_tool_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_id = _parse_tool_id(d.pop("toolId", UNSET))


        def _parse_variables(data: object) -> None | ToolExecutionRequestVariablesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                variables_type_0 = ToolExecutionRequestVariablesType0.from_dict(data)



                return variables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolExecutionRequestVariablesType0 | Unset, data)

        variables = _parse_variables(d.pop("variables", UNSET))


        def _parse_environment_variables(data: object) -> None | ToolExecutionRequestEnvironmentVariablesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                environment_variables_type_0 = ToolExecutionRequestEnvironmentVariablesType0.from_dict(data)



                return environment_variables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolExecutionRequestEnvironmentVariablesType0 | Unset, data)

        environment_variables = _parse_environment_variables(d.pop("environmentVariables", UNSET))


        tool_execution_request = cls(
            tool_id=tool_id,
            variables=variables,
            environment_variables=environment_variables,
        )

        return tool_execution_request

