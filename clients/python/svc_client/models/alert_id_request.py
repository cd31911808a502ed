from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="AlertIdRequest")



@_attrs_define
class AlertIdRequest:
    """ 
        Attributes:
            alert_id (str):
     """

    alert_id: str





    def to_dict(self) -> dict[str, Any]:
        alert_id = self.alert_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "alertId": alert_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        alert_id = d.pop("alertId")

        alert_id_request = cls(
            alert_id=alert_id,
        )

        return alert_id_request

