from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="BackfillRequest")



@_attrs_define
class BackfillRequest:
    """ 
        Attributes:
            scheduled_event_id (str):
            from_ (datetime.datetime):
            to (datetime.datetime):
     """

    scheduled_event_id: str
    from_: datetime.datetime
    to: datetime.datetime





    def to_dict(self) -> dict[str, Any]:
        scheduled_event_id = self.scheduled_event_id

        from_ = self.from_.isoformat()

        to = self.to.isoformat()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "scheduledEventId": scheduled_event_id,
            "from": from_,
            "to": to,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scheduled_event_id = d.pop("scheduledEventId")

        from_ = datetime.datetime.fromisoformat(d.pop("from"))




        to = datetime.datetime.fromisoformat(d.pop("to"))




        backfill_request = cls(
            scheduled_event_id=scheduled_event_id,
            from_=from_,
            to=to,
        )

        return backfill_request

