from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.condition_operator import ConditionOperator
from ..types import UNSET, Unset






T = TypeVar("T", bound="WhereCondition")



@_attrs_define
class WhereCondition:
    """ 
        Attributes:
            column_name (str):
            operator (ConditionOperator):
            value (Any | Unset):
     """

    column_name: str
    operator: ConditionOperator
    value: Any | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        column_name = self.column_name

        operator = self.operator.value

        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "columnName": column_name,
            "operator": operator,
        })
        if value is not UNSET:
            field_dict["value"] = value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        column_name = d.pop("columnName")

        operator = ConditionOperator(d.pop("operator"))




        value = d.pop("value", UNSET)

        where_condition = cls(
            column_name=column_name,
            operator=operator,
            value=value,
        )

        return where_condition

