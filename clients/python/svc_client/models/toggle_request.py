from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ToggleRequest")



@_attrs_define
class ToggleRequest:
    """ 
        Attributes:
            scheduled_event_id (str):
            enabled (bool):
     """

    scheduled_event_id: str
    enabled: bool





    def to_dict(self) -> dict[str, Any]:
        scheduled_event_id = self.scheduled_event_id

        enabled = self.enabled


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "scheduledEventId": scheduled_event_id,
            "enabled": enabled,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scheduled_event_id = d.pop("scheduledEventId")

        enabled = d.pop("enabled")

        toggle_request = cls(
            scheduled_event_id=scheduled_event_id,
            enabled=enabled,
        )

        return toggle_request

