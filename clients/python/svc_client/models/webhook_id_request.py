from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="WebhookIdRequest")



@_attrs_define
class WebhookIdRequest:
    """ 
        Attributes:
            webhook_id (str):
     """

    webhook_id: str





    def to_dict(self) -> dict[str, Any]:
        webhook_id = self.webhook_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        webhook_id_request = cls(
            webhook_id=webhook_id,
        )

        return webhook_id_request

