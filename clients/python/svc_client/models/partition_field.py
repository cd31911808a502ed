from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PartitionField")



@_attrs_define
class PartitionField:
    """ 
        Attributes:
            column (str):
            transform (str):
     """

    column: str
    transform: str





    def to_dict(self) -> dict[str, Any]:
        column = self.column

        transform = self.transform


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "column": column,
            "transform": transform,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        column = d.pop("column")

        transform = d.pop("transform")

        partition_field = cls(
            column=column,
            transform=transform,
        )

        return partition_field

