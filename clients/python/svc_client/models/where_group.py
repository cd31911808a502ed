from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.where_group_logicaloperator import WhereGroupLogicaloperator
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.where_condition import WhereCondition





T = TypeVar("T", bound="WhereGroup")



@_attrs_define
class WhereGroup:
    """ 
        Attributes:
            conditions (list[WhereCondition]):
            logical_operator (WhereGroupLogicaloperator | Unset):  Default: WhereGroupLogicaloperator.AND.
     """

    conditions: list[WhereCondition]
    logical_operator: WhereGroupLogicaloperator | Unset = WhereGroupLogicaloperator.AND





    def to_dict(self) -> dict[str, Any]:
        from ..models.where_condition import WhereCondition # noqa: PLC0415
        conditions = []
        for conditions_item_data in self.conditions:
            conditions_item = conditions_item_data.to_dict()
            conditions.append(conditions_item)



        logical_operator: str | Unset = UNSET
        if not isinstance(self.logical_operator, Unset):
            logical_operator = self.logical_operator.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "conditions": conditions,
        })
        if logical_operator is not UNSET:
            field_dict["logicalOperator"] = logical_operator

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.where_condition import WhereCondition # noqa: PLC0415
        d = dict(src_dict)
        conditions = []
        _conditions = d.pop("conditions")
        for conditions_item_data in (_conditions):
            conditions_item = WhereCondition.from_dict(conditions_item_data)



            conditions.append(conditions_item)


        _logical_operator = d.pop("logicalOperator", UNSET)
        logical_operator: WhereGroupLogicaloperator | Unset
        if isinstance(_logical_operator,  Unset):
            logical_operator = UNSET
        else:
            logical_operator = WhereGroupLogicaloperator(_logical_operator)




        where_group = cls(
            conditions=conditions,
            logical_operator=logical_operator,
        )

        return where_group

