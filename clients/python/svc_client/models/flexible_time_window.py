from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.flex_mode import FlexMode
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="FlexibleTimeWindow")



@_attrs_define
class FlexibleTimeWindow:
    """ As in EventBridge Scheduler: maximumWindowInMinutes with FLEXIBLE only, and required there.

        Attributes:
            mode (FlexMode):
            maximum_window_in_minutes (int | None | Unset):
     """

    mode: FlexMode
    maximum_window_in_minutes: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        mode = self.mode.value

        maximum_window_in_minutes: int | None | Unset
        if isinstance(self.maximum_window_in_minutes, Unset):
            maximum_window_in_minutes = UNSET
        else:
            maximum_window_in_minutes = self.maximum_window_in_minutes


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "mode": mode,
        })
        if maximum_window_in_minutes is not UNSET:
            field_dict["maximumWindowInMinutes"] = maximum_window_in_minutes

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mode = FlexMode(d.pop("mode"))




        def _parse_maximum_window_in_minutes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        maximum_window_in_minutes = _parse_maximum_window_in_minutes(d.pop("maximumWindowInMinutes", UNSET))


        flexible_time_window = cls(
            mode=mode,
            maximum_window_in_minutes=maximum_window_in_minutes,
        )

        return flexible_time_window

