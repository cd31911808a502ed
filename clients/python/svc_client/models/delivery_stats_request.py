from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stats_window import StatsWindow
from ..types import UNSET, Unset






T = TypeVar("T", bound="DeliveryStatsRequest")



@_attrs_define
class DeliveryStatsRequest:
    """ 
        Attributes:
            webhook_id (str):
            window (StatsWindow | Unset):
     """

    webhook_id: str
    window: StatsWindow | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        webhook_id = self.webhook_id

        window: str | Unset = UNSET
        if not isinstance(self.window, Unset):
            window = self.window.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
        })
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        _window = d.pop("window", UNSET)
        window: StatsWindow | Unset
        if isinstance(_window,  Unset):
            window = UNSET
        else:
            window = StatsWindow(_window)




        delivery_stats_request = cls(
            webhook_id=webhook_id,
            window=window,
        )

        return delivery_stats_request

