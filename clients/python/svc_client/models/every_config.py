from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.every_config_unit import EveryConfigUnit






T = TypeVar("T", bound="EveryConfig")



@_attrs_define
class EveryConfig:
    """ 
        Attributes:
            value (int):
            unit (EveryConfigUnit):
     """

    value: int
    unit: EveryConfigUnit





    def to_dict(self) -> dict[str, Any]:
        value = self.value

        unit = self.unit.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "value": value,
            "unit": unit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        unit = EveryConfigUnit(d.pop("unit"))




        every_config = cls(
            value=value,
            unit=unit,
        )

        return every_config

