from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="DescribeRequest")



@_attrs_define
class DescribeRequest:
    """ 
        Attributes:
            table_id (str):
            table_ids (list[str] | Unset):
            include_stats (bool | Unset):  Default: False.
     """

    table_id: str
    table_ids: list[str] | Unset = UNSET
    include_stats: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        table_ids: list[str] | Unset = UNSET
        if not isinstance(self.table_ids, Unset):
            table_ids = self.table_ids



        include_stats = self.include_stats


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
        })
        if table_ids is not UNSET:
            field_dict["tableIds"] = table_ids
        if include_stats is not UNSET:
            field_dict["includeStats"] = include_stats

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        table_ids = cast(list[str], d.pop("tableIds", UNSET))


        include_stats = d.pop("includeStats", UNSET)

        describe_request = cls(
            table_id=table_id,
            table_ids=table_ids,
            include_stats=include_stats,
        )

        return describe_request

