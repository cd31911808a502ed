from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RuleIdRequest")



@_attrs_define
class RuleIdRequest:
    """ 
        Attributes:
            rule_id (str):
     """

    rule_id: str





    def to_dict(self) -> dict[str, Any]:
        rule_id = self.rule_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "ruleId": rule_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rule_id = d.pop("ruleId")

        rule_id_request = cls(
            rule_id=rule_id,
        )

        return rule_id_request

