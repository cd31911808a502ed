from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.version_state import VersionState
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="VersionSelector")



@_attrs_define
class VersionSelector:
    """ The ``version`` object of agentConfig, toolConfig and resourceExecutionConfig.

        Attributes:
            version_state (VersionState | Unset):
            version_number (int | None | Unset):
     """

    version_state: VersionState | Unset = UNSET
    version_number: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        version_state: str | Unset = UNSET
        if not isinstance(self.version_state, Unset):
            version_state = self.version_state.value


        version_number: int | None | Unset
        if isinstance(self.version_number, Unset):
            version_number = UNSET
        else:
            version_number = self.version_number


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if version_state is not UNSET:
            field_dict["versionState"] = version_state
        if version_number is not UNSET:
            field_dict["versionNumber"] = version_number

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _version_state = d.pop("versionState", UNSET)
        version_state: VersionState | Unset
        if isinstance(_version_state,  Unset):
            version_state = UNSET
        else:
            version_state = VersionState(_version_state)




        def _parse_version_number(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version_number = _parse_version_number(d.pop("versionNumber", UNSET))


        version_selector = cls(
            version_state=version_state,
            version_number=version_number,
        )

        return version_selector

