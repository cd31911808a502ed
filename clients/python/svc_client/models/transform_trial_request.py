from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.transform_trial_request_headers import TransformTrialRequestHeaders
  from ..models.transform_trial_request_queryparams import TransformTrialRequestQueryparams
  from ..models.transform_trial_request_webhook_config_type_0 import TransformTrialRequestWebhookConfigType0





T = TypeVar("T", bound="TransformTrialRequest")



@_attrs_define
class TransformTrialRequest:
    """ 
        Attributes:
            body (str): The sample request body, as a trigger would receive it
            webhook_id (None | str | Unset): A saved webhook (READ on it); its stored configuration
            webhook_config (None | TransformTrialRequestWebhookConfigType0 | Unset): A configuration as /create takes it,
                tested unsaved (in place of the stored one)
            headers (TransformTrialRequestHeaders | Unset): The sample's headers (names in any case); content-type decides
                how the body is read
            query_params (TransformTrialRequestQueryparams | Unset):
     """

    body: str
    webhook_id: None | str | Unset = UNSET
    webhook_config: None | TransformTrialRequestWebhookConfigType0 | Unset = UNSET
    headers: TransformTrialRequestHeaders | Unset = UNSET
    query_params: TransformTrialRequestQueryparams | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.transform_trial_request_headers import TransformTrialRequestHeaders # noqa: PLC0415
        from ..models.transform_trial_request_queryparams import TransformTrialRequestQueryparams # noqa: PLC0415
        from ..models.transform_trial_request_webhook_config_type_0 import TransformTrialRequestWebhookConfigType0 # noqa: PLC0415
        body = self.body

        webhook_id: None | str | Unset
        if isinstance(self.webhook_id, Unset):
            webhook_id = UNSET
        else:
            webhook_id = self.webhook_id

        webhook_config: dict[str, Any] | None | Unset
        if isinstance(self.webhook_config, Unset):
            webhook_config = UNSET
        elif isinstance(self.webhook_config, TransformTrialRequestWebhookConfigType0):
            webhook_config = self.webhook_config.to_dict()
        else:
            webhook_config = self.webhook_config

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        query_params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.query_params, Unset):
            query_params = self.query_params.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "body": body,
        })
        if webhook_id is not UNSET:
            field_dict["webhookId"] = webhook_id
        if webhook_config is not UNSET:
            field_dict["webhookConfig"] = webhook_config
        if headers is not UNSET:
            field_dict["headers"] = headers
        if query_params is not UNSET:
            field_dict["queryParams"] = query_params

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transform_trial_request_headers import TransformTrialRequestHeaders # noqa: PLC0415
        from ..models.transform_trial_request_queryparams import TransformTrialRequestQueryparams # noqa: PLC0415
        from ..models.transform_trial_request_webhook_config_type_0 import TransformTrialRequestWebhookConfigType0 # noqa: PLC0415
        d = dict(src_dict)
        body = d.pop("body")

        def _parse_webhook_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_id = _parse_webhook_id(d.pop("webhookId", UNSET))


        def _parse_webhook_config(data: object) -> None | TransformTrialRequestWebhookConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                webhook_config_type_0 = TransformTrialRequestWebhookConfigType0.from_dict(data)



                return webhook_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TransformTrialRequestWebhookConfigType0 | Unset, data)

        webhook_config = _parse_webhook_config(d.pop("webhookConfig", UNSET))


        _headers = d.pop("headers", UNSET)
        headers: TransformTrialRequestHeaders | Unset
        if isinstance(_headers,  Unset):
            headers = UNSET
        else:
            headers = TransformTrialRequestHeaders.from_dict(_headers)




        _query_params = d.pop("queryParams", UNSET)
        query_params: TransformTrialRequestQueryparams | Unset
        if isinstance(_query_params,  Unset):
            query_params = UNSET
        else:
            query_params = TransformTrialRequestQueryparams.from_dict(_query_params)




        transform_trial_request = cls(
            body=body,
            webhook_id=webhook_id,
            webhook_config=webhook_config,
            headers=headers,
            query_params=query_params,
        )

        return transform_trial_request

