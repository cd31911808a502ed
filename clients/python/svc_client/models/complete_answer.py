from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CompleteAnswer")



@_attrs_define
class CompleteAnswer:
    """ 
        Attributes:
            s_3_uri (str):
            size_bytes (int):
            errors (list[str] | Unset):
     """

    s_3_uri: str
    size_bytes: int
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        s_3_uri = self.s_3_uri

        size_bytes = self.size_bytes

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "s3Uri": s_3_uri,
            "sizeBytes": size_bytes,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        s_3_uri = d.pop("s3Uri")

        size_bytes = d.pop("sizeBytes")

        errors = cast(list[str], d.pop("errors", UNSET))


        complete_answer = cls(
            s_3_uri=s_3_uri,
            size_bytes=size_bytes,
            errors=errors,
        )


        complete_answer.additional_properties = d
        return complete_answer

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
