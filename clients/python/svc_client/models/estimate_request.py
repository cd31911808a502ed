from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="EstimateRequest")



@_attrs_define
class EstimateRequest:
    """ 
        Attributes:
            table_id (str):
            sql (str):
     """

    table_id: str
    sql: str





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        sql = self.sql


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "sql": sql,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        sql = d.pop("sql")

        estimate_request = cls(
            table_id=table_id,
            sql=sql,
        )

        return estimate_request

