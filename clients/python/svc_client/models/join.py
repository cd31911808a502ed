from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.join_relationship import JoinRelationship
from ..types import UNSET, Unset






T = TypeVar("T", bound="Join")



@_attrs_define
class Join:
    """ 
        Attributes:
            sql_name (str):
            on (str):
            relationship (JoinRelationship | Unset):  Default: JoinRelationship.MANY_TO_ONE.
     """

    sql_name: str
    on: str
    relationship: JoinRelationship | Unset = JoinRelationship.MANY_TO_ONE





    def to_dict(self) -> dict[str, Any]:
        sql_name = self.sql_name

        on = self.on

        relationship: str | Unset = UNSET
        if not isinstance(self.relationship, Unset):
            relationship = self.relationship.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "sqlName": sql_name,
            "on": on,
        })
        if relationship is not UNSET:
            field_dict["relationship"] = relationship

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        sql_name = d.pop("sqlName")

        on = d.pop("on")

        _relationship = d.pop("relationship", UNSET)
        relationship: JoinRelationship | Unset
        if isinstance(_relationship,  Unset):
            relationship = UNSET
        else:
            relationship = JoinRelationship(_relationship)




        join = cls(
            sql_name=sql_name,
            on=on,
            relationship=relationship,
        )

        return join

