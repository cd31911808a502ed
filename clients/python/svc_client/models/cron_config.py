from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="CronConfig")



@_attrs_define
class CronConfig:
    """ 
        Attributes:
            expression (str):
            timezone (str):
     """

    expression: str
    timezone: str





    def to_dict(self) -> dict[str, Any]:
        expression = self.expression

        timezone = self.timezone


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "expression": expression,
            "timezone": timezone,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expression = d.pop("expression")

        timezone = d.pop("timezone")

        cron_config = cls(
            expression=expression,
            timezone=timezone,
        )

        return cron_config

