from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.access_level import AccessLevel






T = TypeVar("T", bound="DirectShareEntry")



@_attrs_define
class DirectShareEntry:
    """ 
        Attributes:
            user_id (str):
            user_email (str):
            access_level (AccessLevel):
     """

    user_id: str
    user_email: str
    access_level: AccessLevel
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        user_email = self.user_email

        access_level = self.access_level.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "userId": user_id,
            "userEmail": user_email,
            "accessLevel": access_level,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user_id = d.pop("userId")

        user_email = d.pop("userEmail")

        access_level = AccessLevel(d.pop("accessLevel"))




        direct_share_entry = cls(
            user_id=user_id,
            user_email=user_email,
            access_level=access_level,
        )


        direct_share_entry.additional_properties = d
        return direct_share_entry

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
