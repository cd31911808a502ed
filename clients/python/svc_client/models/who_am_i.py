from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="WhoAmI")



@_attrs_define
class WhoAmI:
    """ 
        Attributes:
            company_id (str):
            user_id (str):
            email (str):
            is_admin (bool):
            key_type (str):
            errors (list[str] | Unset):
     """

    company_id: str
    user_id: str
    email: str
    is_admin: bool
    key_type: str
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        company_id = self.company_id

        user_id = self.user_id

        email = self.email

        is_admin = self.is_admin

        key_type = self.key_type

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "companyId": company_id,
            "userId": user_id,
            "email": email,
            "isAdmin": is_admin,
            "keyType": key_type,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        company_id = d.pop("companyId")

        user_id = d.pop("userId")

        email = d.pop("email")

        is_admin = d.pop("isAdmin")

        key_type = d.pop("keyType")

        errors = cast(list[str], d.pop("errors", UNSET))


        who_am_i = cls(
            company_id=company_id,
            user_id=user_id,
            email=email,
            is_admin=is_admin,
            key_type=key_type,
            errors=errors,
        )


        who_am_i.additional_properties = d
        return who_am_i

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
