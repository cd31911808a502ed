from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="WebhookFailures")



@_attrs_define
class WebhookFailures:
    """ A webhook's final FAILED deliveries (retries exhausted or not retryable) reach ``count`` within
    ``withinMinutes``; without ``webhookId``, any webhook of the company (each is its own subject).

        Attributes:
            type_ (Literal['WEBHOOK_FAILURES']):
            count (int):
            within_minutes (int):
            webhook_id (None | str | Unset):
     """

    type_: Literal['WEBHOOK_FAILURES']
    count: int
    within_minutes: int
    webhook_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        count = self.count

        within_minutes = self.within_minutes

        webhook_id: None | str | Unset
        if isinstance(self.webhook_id, Unset):
            webhook_id = UNSET
        else:
            webhook_id = self.webhook_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "count": count,
            "withinMinutes": within_minutes,
        })
        if webhook_id is not UNSET:
            field_dict["webhookId"] = webhook_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['WEBHOOK_FAILURES'] , d.pop("type"))
        if type_ != 'WEBHOOK_FAILURES':
            raise ValueError(f"type must match const 'WEBHOOK_FAILURES', got '{type_}'")

        count = d.pop("count")

        within_minutes = d.pop("withinMinutes")

        def _parse_webhook_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_id = _parse_webhook_id(d.pop("webhookId", UNSET))


        webhook_failures = cls(
            type_=type_,
            count=count,
            within_minutes=within_minutes,
            webhook_id=webhook_id,
        )

        return webhook_failures

