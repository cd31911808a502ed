from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.column_spec import ColumnSpec





T = TypeVar("T", bound="AddColumnRequest")



@_attrs_define
class AddColumnRequest:
    """ 
        Attributes:
            table_id (str):
            column (ColumnSpec):
     """

    table_id: str
    column: ColumnSpec





    def to_dict(self) -> dict[str, Any]:
        from ..models.column_spec import ColumnSpec # noqa: PLC0415
        table_id = self.table_id

        column = self.column.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "column": column,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.column_spec import ColumnSpec # noqa: PLC0415
        d = dict(src_dict)
        table_id = d.pop("tableId")

        column = ColumnSpec.from_dict(d.pop("column"))




        add_column_request = cls(
            table_id=table_id,
            column=column,
        )

        return add_column_request

