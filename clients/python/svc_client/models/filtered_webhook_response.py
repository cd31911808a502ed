from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="FilteredWebhookResponse")



@_attrs_define
class FilteredWebhookResponse:
    """ The trigger's 200: the delivery is recorded (status FILTERED) but did not match the webhook's
    filterConfig, so it was not queued and no handler runs.

        Attributes:
            success (bool):
            message (str):
            execution_id (None | str | Unset):
            webhook_id (None | str | Unset):
            errors (list[str] | Unset):
            filtered (bool | Unset):  Default: True.
     """

    success: bool
    message: str
    execution_id: None | str | Unset = UNSET
    webhook_id: None | str | Unset = UNSET
    errors: list[str] | Unset = UNSET
    filtered: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        success = self.success

        message = self.message

        execution_id: None | str | Unset
        if isinstance(self.execution_id, Unset):
            execution_id = UNSET
        else:
            execution_id = self.execution_id

        webhook_id: None | str | Unset
        if isinstance(self.webhook_id, Unset):
            webhook_id = UNSET
        else:
            webhook_id = self.webhook_id

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors



        filtered = self.filtered


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "success": success,
            "message": message,
        })
        if execution_id is not UNSET:
            field_dict["executionId"] = execution_id
        if webhook_id is not UNSET:
            field_dict["webhookId"] = webhook_id
        if errors is not UNSET:
            field_dict["errors"] = errors
        if filtered is not UNSET:
            field_dict["filtered"] = filtered

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        success = d.pop("success")

        message = d.pop("message")

        def _parse_execution_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        execution_id = _parse_execution_id(d.pop("executionId", UNSET))


        def _parse_webhook_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_id = _parse_webhook_id(d.pop("webhookId", UNSET))


        errors = cast(list[str], d.pop("errors", UNSET))


        filtered = d.pop("filtered", UNSET)

        filtered_webhook_response = cls(
            success=success,
            message=message,
            execution_id=execution_id,
            webhook_id=webhook_id,
            errors=errors,
            filtered=filtered,
        )


        filtered_webhook_response.additional_properties = d
        return filtered_webhook_response

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
