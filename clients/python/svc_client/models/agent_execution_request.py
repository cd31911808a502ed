from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.agent_execution_request_environment_variables_type_0 import AgentExecutionRequestEnvironmentVariablesType0
  from ..models.input_item import InputItem





T = TypeVar("T", bound="AgentExecutionRequest")



@_attrs_define
class AgentExecutionRequest:
    """ 
        Attributes:
            input_ (list[InputItem]):
            agent_id (None | str | Unset):
            environment_variables (AgentExecutionRequestEnvironmentVariablesType0 | None | Unset):
     """

    input_: list[InputItem]
    agent_id: None | str | Unset = UNSET
    environment_variables: AgentExecutionRequestEnvironmentVariablesType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.agent_execution_request_environment_variables_type_0 import AgentExecutionRequestEnvironmentVariablesType0 # noqa: PLC0415
        from ..models.input_item import InputItem # noqa: PLC0415
        input_ = []
        for input_item_data in self.input_:
            input_item = input_item_data.to_dict()
            input_.append(input_item)



        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        environment_variables: dict[str, Any] | None | Unset
        if isinstance(self.environment_variables, Unset):
            environment_variables = UNSET
        elif isinstance(self.environment_variables, AgentExecutionRequestEnvironmentVariablesType0):
            environment_variables = self.environment_variables.to_dict()
        else:
            environment_variables = self.environment_variables


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "input": input_,
        })
        if agent_id is not UNSET:
            field_dict["agentId"] = agent_id
        if environment_variables is not UNSET:
            field_dict["environmentVariables"] = environment_variables

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_execution_request_environment_variables_type_0 import AgentExecutionRequestEnvironmentVariablesType0 # noqa: PLC0415
        from ..models.input_item import InputItem # noqa: PLC0415
        d = dict(src_dict)
        input_ = []
        _input_ = d.pop("input")
        for input_item_data in (_input_):
            input_item = InputItem.from_dict(input_item_data)



            input_.append(input_item)


        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        agent_id = _parse_agent_id(d.pop("agentId", UNSET))


        def _parse_environment_variables(data: object) -> AgentExecutionRequestEnvironmentVariablesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                environment_variables_type_0 = AgentExecutionRequestEnvironmentVariablesType0.from_dict(data)



                return environment_variables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AgentExecutionRequestEnvironmentVariablesType0 | None | Unset, data)

        environment_variables = _parse_environment_variables(d.pop("environmentVariables", UNSET))


        agent_execution_request = cls(
            input_=input_,
            agent_id=agent_id,
            environment_variables=environment_variables,
        )

        return agent_execution_request

