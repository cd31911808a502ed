from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.update_webhook_request_webhookconfig import UpdateWebhookRequestWebhookconfig





T = TypeVar("T", bound="UpdateWebhookRequest")



@_attrs_define
class UpdateWebhookRequest:
    """ 
        Attributes:
            webhook_id (str):
            webhook_config (UpdateWebhookRequestWebhookconfig):
            is_enabled (bool | None | Unset):
     """

    webhook_id: str
    webhook_config: UpdateWebhookRequestWebhookconfig
    is_enabled: bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.update_webhook_request_webhookconfig import UpdateWebhookRequestWebhookconfig # noqa: PLC0415
        webhook_id = self.webhook_id

        webhook_config = self.webhook_config.to_dict()

        is_enabled: bool | None | Unset
        if isinstance(self.is_enabled, Unset):
            is_enabled = UNSET
        else:
            is_enabled = self.is_enabled


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
            "webhookConfig": webhook_config,
        })
        if is_enabled is not UNSET:
            field_dict["isEnabled"] = is_enabled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.update_webhook_request_webhookconfig import UpdateWebhookRequestWebhookconfig # noqa: PLC0415
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        webhook_config = UpdateWebhookRequestWebhookconfig.from_dict(d.pop("webhookConfig"))




        def _parse_is_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_enabled = _parse_is_enabled(d.pop("isEnabled", UNSET))


        update_webhook_request = cls(
            webhook_id=webhook_id,
            webhook_config=webhook_config,
            is_enabled=is_enabled,
        )

        return update_webhook_request

