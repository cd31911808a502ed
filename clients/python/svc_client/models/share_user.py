from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.access_level import AccessLevel
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ShareUser")



@_attrs_define
class ShareUser:
    """ 
        Attributes:
            user_email (None | str | Unset):
            user_id (None | str | Unset):
            access_level (AccessLevel | None | Unset):
     """

    user_email: None | str | Unset = UNSET
    user_id: None | str | Unset = UNSET
    access_level: AccessLevel | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        user_email: None | str | Unset
        if isinstance(self.user_email, Unset):
            user_email = UNSET
        else:
            user_email = self.user_email

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        else:
            user_id = self.user_id

        access_level: None | str | Unset
        if isinstance(self.access_level, Unset):
            access_level = UNSET
        elif isinstance(self.access_level, AccessLevel):
            access_level = self.access_level.value
        else:
            access_level = self.access_level


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if user_email is not UNSET:
            field_dict["userEmail"] = user_email
        if user_id is not UNSET:
            field_dict["userId"] = user_id
        if access_level is not UNSET:
            field_dict["accessLevel"] = access_level

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_user_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_email = _parse_user_email(d.pop("userEmail", UNSET))


        def _parse_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_id = _parse_user_id(d.pop("userId", UNSET))


        def _parse_access_level(data: object) -> AccessLevel | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                access_level_type_0 = AccessLevel(data)



                return access_level_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccessLevel | None | Unset, data)

        access_level = _parse_access_level(d.pop("accessLevel", UNSET))


        share_user = cls(
            user_email=user_email,
            user_id=user_id,
            access_level=access_level,
        )

        return share_user

