from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Updated")



@_attrs_define
class Updated:
    """ 
        Attributes:
            updated (bool | Unset):  Default: True.
            semantics_version (int | None | Unset):
            errors (list[str] | Unset):
     """

    updated: bool | Unset = True
    semantics_version: int | None | Unset = UNSET
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        updated = self.updated

        semantics_version: int | None | Unset
        if isinstance(self.semantics_version, Unset):
            semantics_version = UNSET
        else:
            semantics_version = self.semantics_version

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if updated is not UNSET:
            field_dict["updated"] = updated
        if semantics_version is not UNSET:
            field_dict["semanticsVersion"] = semantics_version
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        updated = d.pop("updated", UNSET)

        def _parse_semantics_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        semantics_version = _parse_semantics_version(d.pop("semanticsVersion", UNSET))


        errors = cast(list[str], d.pop("errors", UNSET))


        updated = cls(
            updated=updated,
            semantics_version=semantics_version,
            errors=errors,
        )


        updated.additional_properties = d
        return updated

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
