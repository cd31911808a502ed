from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.grant_table_request_level import GrantTableRequestLevel
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="GrantTableRequest")



@_attrs_define
class GrantTableRequest:
    """ 
        Attributes:
            table_id (str):
            level (GrantTableRequestLevel):
            user_id (None | str | Unset):
            user_email (None | str | Unset):
            row_filter (None | str | Unset):
            hidden_columns (list[str] | Unset):
            can_reveal (bool | Unset):  Default: False.
     """

    table_id: str
    level: GrantTableRequestLevel
    user_id: None | str | Unset = UNSET
    user_email: None | str | Unset = UNSET
    row_filter: None | str | Unset = UNSET
    hidden_columns: list[str] | Unset = UNSET
    can_reveal: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        level = self.level.value

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        else:
            user_id = self.user_id

        user_email: None | str | Unset
        if isinstance(self.user_email, Unset):
            user_email = UNSET
        else:
            user_email = self.user_email

        row_filter: None | str | Unset
        if isinstance(self.row_filter, Unset):
            row_filter = UNSET
        else:
            row_filter = self.row_filter

        hidden_columns: list[str] | Unset = UNSET
        if not isinstance(self.hidden_columns, Unset):
            hidden_columns = self.hidden_columns



        can_reveal = self.can_reveal


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "level": level,
        })
        if user_id is not UNSET:
            field_dict["userId"] = user_id
        if user_email is not UNSET:
            field_dict["userEmail"] = user_email
        if row_filter is not UNSET:
            field_dict["rowFilter"] = row_filter
        if hidden_columns is not UNSET:
            field_dict["hiddenColumns"] = hidden_columns
        if can_reveal is not UNSET:
            field_dict["canReveal"] = can_reveal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        level = GrantTableRequestLevel(d.pop("level"))




        def _parse_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_id = _parse_user_id(d.pop("userId", UNSET))


        def _parse_user_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_email = _parse_user_email(d.pop("userEmail", UNSET))


        def _parse_row_filter(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        row_filter = _parse_row_filter(d.pop("rowFilter", UNSET))


        hidden_columns = cast(list[str], d.pop("hiddenColumns", UNSET))


        can_reveal = d.pop("canReveal", UNSET)

        grant_table_request = cls(
            table_id=table_id,
            level=level,
            user_id=user_id,
            user_email=user_email,
            row_filter=row_filter,
            hidden_columns=hidden_columns,
            can_reveal=can_reveal,
        )

        return grant_table_request

