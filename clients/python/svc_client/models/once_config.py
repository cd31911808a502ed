from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="OnceConfig")



@_attrs_define
class OnceConfig:
    """ 
        Attributes:
            at (datetime.datetime):
            timezone (str):
     """

    at: datetime.datetime
    timezone: str





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        timezone = self.timezone


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "at": at,
            "timezone": timezone,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        timezone = d.pop("timezone")

        once_config = cls(
            at=at,
            timezone=timezone,
        )

        return once_config

