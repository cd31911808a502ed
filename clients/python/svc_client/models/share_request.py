from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.access_level import AccessLevel
from ..models.sharing_level import SharingLevel
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.share_user import ShareUser





T = TypeVar("T", bound="ShareRequest")



@_attrs_define
class ShareRequest:
    """ 
        Attributes:
            webhook_id (str):
            level (SharingLevel):
            access_level (AccessLevel | None | Unset):
            users_to_add (list[ShareUser] | None | Unset):
            users_to_remove (list[ShareUser] | None | Unset):
     """

    webhook_id: str
    level: SharingLevel
    access_level: AccessLevel | None | Unset = UNSET
    users_to_add: list[ShareUser] | None | Unset = UNSET
    users_to_remove: list[ShareUser] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.share_user import ShareUser # noqa: PLC0415
        webhook_id = self.webhook_id

        level = self.level.value

        access_level: None | str | Unset
        if isinstance(self.access_level, Unset):
            access_level = UNSET
        elif isinstance(self.access_level, AccessLevel):
            access_level = self.access_level.value
        else:
            access_level = self.access_level

        users_to_add: list[dict[str, Any]] | None | Unset
        if isinstance(self.users_to_add, Unset):
            users_to_add = UNSET
        elif isinstance(self.users_to_add, list):
            users_to_add = []
            for users_to_add_type_0_item_data in self.users_to_add:
                users_to_add_type_0_item = users_to_add_type_0_item_data.to_dict()
                users_to_add.append(users_to_add_type_0_item)


        else:
            users_to_add = self.users_to_add

        users_to_remove: list[dict[str, Any]] | None | Unset
        if isinstance(self.users_to_remove, Unset):
            users_to_remove = UNSET
        elif isinstance(self.users_to_remove, list):
            users_to_remove = []
            for users_to_remove_type_0_item_data in self.users_to_remove:
                users_to_remove_type_0_item = users_to_remove_type_0_item_data.to_dict()
                users_to_remove.append(users_to_remove_type_0_item)


        else:
            users_to_remove = self.users_to_remove


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
            "level": level,
        })
        if access_level is not UNSET:
            field_dict["accessLevel"] = access_level
        if users_to_add is not UNSET:
            field_dict["usersToAdd"] = users_to_add
        if users_to_remove is not UNSET:
            field_dict["usersToRemove"] = users_to_remove

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.share_user import ShareUser # noqa: PLC0415
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        level = SharingLevel(d.pop("level"))




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


        def _parse_users_to_add(data: object) -> list[ShareUser] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                users_to_add_type_0 = []
                _users_to_add_type_0 = data
                for users_to_add_type_0_item_data in (_users_to_add_type_0):
                    users_to_add_type_0_item = ShareUser.from_dict(users_to_add_type_0_item_data)



                    users_to_add_type_0.append(users_to_add_type_0_item)

                return users_to_add_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShareUser] | None | Unset, data)

        users_to_add = _parse_users_to_add(d.pop("usersToAdd", UNSET))


        def _parse_users_to_remove(data: object) -> list[ShareUser] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                users_to_remove_type_0 = []
                _users_to_remove_type_0 = data
                for users_to_remove_type_0_item_data in (_users_to_remove_type_0):
                    users_to_remove_type_0_item = ShareUser.from_dict(users_to_remove_type_0_item_data)



                    users_to_remove_type_0.append(users_to_remove_type_0_item)

                return users_to_remove_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShareUser] | None | Unset, data)

        users_to_remove = _parse_users_to_remove(d.pop("usersToRemove", UNSET))


        share_request = cls(
            webhook_id=webhook_id,
            level=level,
            access_level=access_level,
            users_to_add=users_to_add,
            users_to_remove=users_to_remove,
        )

        return share_request

