from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.agent_execution_request import AgentExecutionRequest
  from ..models.version_selector import VersionSelector





T = TypeVar("T", bound="AgentConfig")



@_attrs_define
class AgentConfig:
    """ 
        Attributes:
            agent_execution_request (AgentExecutionRequest | None | Unset):
            continue_on_error (bool | Unset):  Default: False.
            description (None | str | Unset):
            version (None | Unset | VersionSelector):
     """

    agent_execution_request: AgentExecutionRequest | None | Unset = UNSET
    continue_on_error: bool | Unset = False
    description: None | str | Unset = UNSET
    version: None | Unset | VersionSelector = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.agent_execution_request import AgentExecutionRequest # noqa: PLC0415
        from ..models.version_selector import VersionSelector # noqa: PLC0415
        agent_execution_request: dict[str, Any] | None | Unset
        if isinstance(self.agent_execution_request, Unset):
            agent_execution_request = UNSET
        elif isinstance(self.agent_execution_request, AgentExecutionRequest):
            agent_execution_request = self.agent_execution_request.to_dict()
        else:
            agent_execution_request = self.agent_execution_request

        continue_on_error = self.continue_on_error

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        version: dict[str, Any] | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        elif isinstance(self.version, VersionSelector):
            version = self.version.to_dict()
        else:
            version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if agent_execution_request is not UNSET:
            field_dict["agentExecutionRequest"] = agent_execution_request
        if continue_on_error is not UNSET:
            field_dict["continueOnError"] = continue_on_error
        if description is not UNSET:
            field_dict["description"] = description
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_execution_request import AgentExecutionRequest # noqa: PLC0415
        from ..models.version_selector import VersionSelector # noqa: PLC0415
        d = dict(src_dict)
        def _parse_agent_execution_request(data: object) -> AgentExecutionRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                agent_execution_request_type_0 = AgentExecutionRequest.from_dict(data)



                return agent_execution_request_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AgentExecutionRequest | None | Unset, data)

        agent_execution_request = _parse_agent_execution_request(d.pop("agentExecutionRequest", UNSET))


        continue_on_error = d.pop("continueOnError", UNSET)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_version(data: object) -> None | Unset | VersionSelector:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                version_type_0 = VersionSelector.from_dict(data)



                return version_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VersionSelector, data)

        version = _parse_version(d.pop("version", UNSET))


        agent_config = cls(
            agent_execution_request=agent_execution_request,
            continue_on_error=continue_on_error,
            description=description,
            version=version,
        )

        return agent_config

