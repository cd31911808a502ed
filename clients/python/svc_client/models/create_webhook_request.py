from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.create_webhook_request_webhookconfig import CreateWebhookRequestWebhookconfig





T = TypeVar("T", bound="CreateWebhookRequest")



@_attrs_define
class CreateWebhookRequest:
    """ 
        Attributes:
            webhook_config (CreateWebhookRequestWebhookconfig):
     """

    webhook_config: CreateWebhookRequestWebhookconfig





    def to_dict(self) -> dict[str, Any]:
        from ..models.create_webhook_request_webhookconfig import CreateWebhookRequestWebhookconfig # noqa: PLC0415
        webhook_config = self.webhook_config.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookConfig": webhook_config,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_webhook_request_webhookconfig import CreateWebhookRequestWebhookconfig # noqa: PLC0415
        d = dict(src_dict)
        webhook_config = CreateWebhookRequestWebhookconfig.from_dict(d.pop("webhookConfig"))




        create_webhook_request = cls(
            webhook_config=webhook_config,
        )

        return create_webhook_request

