from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="InputItem")



@_attrs_define
class InputItem:
    """ 
        Attributes:
            input_type (str):
            content (Any):
     """

    input_type: str
    content: Any





    def to_dict(self) -> dict[str, Any]:
        input_type = self.input_type

        content = self.content


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "inputType": input_type,
            "content": content,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_type = d.pop("inputType")

        content = d.pop("content")

        input_item = cls(
            input_type=input_type,
            content=content,
        )

        return input_item

