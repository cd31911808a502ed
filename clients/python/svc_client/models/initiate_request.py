from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="InitiateRequest")



@_attrs_define
class InitiateRequest:
    """ 
        Attributes:
            file_name (str):
     """

    file_name: str





    def to_dict(self) -> dict[str, Any]:
        file_name = self.file_name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "fileName": file_name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        file_name = d.pop("fileName")

        initiate_request = cls(
            file_name=file_name,
        )

        return initiate_request

