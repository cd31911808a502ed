from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.access_level import AccessLevel
from ..models.sharing_level import SharingLevel
from typing import cast

if TYPE_CHECKING:
  from ..models.webhook_webhookconfig import WebhookWebhookconfig





T = TypeVar("T", bound="Webhook")



@_attrs_define
class Webhook:
    """ 
        Attributes:
            id (str):
            company_id (str):
            owner_id (str):
            webhook_config (WebhookWebhookconfig):
            api_key_id (str):
            is_enabled (bool):
            sharing_level (SharingLevel):
            company_permission_level (AccessLevel | None):
            created_at (str):
            updated_at (str):
            user_access_level (AccessLevel):
     """

    id: str
    company_id: str
    owner_id: str
    webhook_config: WebhookWebhookconfig
    api_key_id: str
    is_enabled: bool
    sharing_level: SharingLevel
    company_permission_level: AccessLevel | None
    created_at: str
    updated_at: str
    user_access_level: AccessLevel
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_webhookconfig import WebhookWebhookconfig # noqa: PLC0415
        id = self.id

        company_id = self.company_id

        owner_id = self.owner_id

        webhook_config = self.webhook_config.to_dict()

        api_key_id = self.api_key_id

        is_enabled = self.is_enabled

        sharing_level = self.sharing_level.value

        company_permission_level: None | str
        if isinstance(self.company_permission_level, AccessLevel):
            company_permission_level = self.company_permission_level.value
        else:
            company_permission_level = self.company_permission_level

        created_at = self.created_at

        updated_at = self.updated_at

        user_access_level = self.user_access_level.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "companyId": company_id,
            "ownerId": owner_id,
            "webhookConfig": webhook_config,
            "apiKeyId": api_key_id,
            "isEnabled": is_enabled,
            "sharingLevel": sharing_level,
            "companyPermissionLevel": company_permission_level,
            "createdAt": created_at,
            "updatedAt": updated_at,
            "userAccessLevel": user_access_level,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_webhookconfig import WebhookWebhookconfig # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        company_id = d.pop("companyId")

        owner_id = d.pop("ownerId")

        webhook_config = WebhookWebhookconfig.from_dict(d.pop("webhookConfig"))




        api_key_id = d.pop("apiKeyId")

        is_enabled = d.pop("isEnabled")

        sharing_level = SharingLevel(d.pop("sharingLevel"))




        def _parse_company_permission_level(data: object) -> AccessLevel | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                company_permission_level_type_0 = AccessLevel(data)



                return company_permission_level_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccessLevel | None, data)

        company_permission_level = _parse_company_permission_level(d.pop("companyPermissionLevel"))


        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        user_access_level = AccessLevel(d.pop("userAccessLevel"))




        webhook = cls(
            id=id,
            company_id=company_id,
            owner_id=owner_id,
            webhook_config=webhook_config,
            api_key_id=api_key_id,
            is_enabled=is_enabled,
            sharing_level=sharing_level,
            company_permission_level=company_permission_level,
            created_at=created_at,
            updated_at=updated_at,
            user_access_level=user_access_level,
        )


        webhook.additional_properties = d
        return webhook

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
