from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="PreviewRequest")



@_attrs_define
class PreviewRequest:
    """ 
        Attributes:
            table_id (str):
            limit (int | Unset): Rows to return, 1 to 100 (default 50); more than 100 answers 413 ROW_LIMIT Default: 50.
            reveal (bool | Unset):  Default: False.
     """

    table_id: str
    limit: int | Unset = 50
    reveal: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        limit = self.limit

        reveal = self.reveal


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
        })
        if limit is not UNSET:
            field_dict["limit"] = limit
        if reveal is not UNSET:
            field_dict["reveal"] = reveal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        limit = d.pop("limit", UNSET)

        reveal = d.pop("reveal", UNSET)

        preview_request = cls(
            table_id=table_id,
            limit=limit,
            reveal=reveal,
        )

        return preview_request

