from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SnapshotsRequest")



@_attrs_define
class SnapshotsRequest:
    """ 
        Attributes:
            table_id (str):
            limit (int | Unset): Snapshots per page, newest first Default: 100.
            cursor (None | str | Unset): nextCursor of the previous page
     """

    table_id: str
    limit: int | Unset = 100
    cursor: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        limit = self.limit

        cursor: None | str | Unset
        if isinstance(self.cursor, Unset):
            cursor = UNSET
        else:
            cursor = self.cursor


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
        })
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        limit = d.pop("limit", UNSET)

        def _parse_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cursor = _parse_cursor(d.pop("cursor", UNSET))


        snapshots_request = cls(
            table_id=table_id,
            limit=limit,
            cursor=cursor,
        )

        return snapshots_request

