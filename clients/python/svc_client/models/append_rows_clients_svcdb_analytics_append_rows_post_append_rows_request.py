from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest")



@_attrs_define
class AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest:
    """ 
        Attributes:
            table_id (str):
            rows (list[Any]):
     """

    table_id: str
    rows: list[Any]





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        rows = self.rows




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "rows": rows,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        rows = cast(list[Any], d.pop("rows"))


        append_rows_clients_svcdb_analytics_append_rows_post_append_rows_request = cls(
            table_id=table_id,
            rows=rows,
        )

        return append_rows_clients_svcdb_analytics_append_rows_post_append_rows_request

