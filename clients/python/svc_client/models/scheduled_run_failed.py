from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="ScheduledRunFailed")



@_attrs_define
class ScheduledRunFailed:
    """ A scheduled event's run (``eventId``, or any event of the company) ends FAILED (dead-lettered when the
    event has a deadLetterConfig) or MISSED.

        Attributes:
            type_ (Literal['SCHEDULED_RUN']):
            event_id (None | str | Unset):
     """

    type_: Literal['SCHEDULED_RUN']
    event_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        event_id: None | str | Unset
        if isinstance(self.event_id, Unset):
            event_id = UNSET
        else:
            event_id = self.event_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if event_id is not UNSET:
            field_dict["eventId"] = event_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['SCHEDULED_RUN'] , d.pop("type"))
        if type_ != 'SCHEDULED_RUN':
            raise ValueError(f"type must match const 'SCHEDULED_RUN', got '{type_}'")

        def _parse_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_id = _parse_event_id(d.pop("eventId", UNSET))


        scheduled_run_failed = cls(
            type_=type_,
            event_id=event_id,
        )

        return scheduled_run_failed

