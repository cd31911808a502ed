from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.scheduled_event import ScheduledEvent





T = TypeVar("T", bound="CreatedAnswer")



@_attrs_define
class CreatedAnswer:
    """ 
        Attributes:
            scheduled_event (ScheduledEvent):
            event_id (str):
            schedule_arn (str):
            errors (list[str] | Unset):
     """

    scheduled_event: ScheduledEvent
    event_id: str
    schedule_arn: str
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.scheduled_event import ScheduledEvent # noqa: PLC0415
        scheduled_event = self.scheduled_event.to_dict()

        event_id = self.event_id

        schedule_arn = self.schedule_arn

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "scheduledEvent": scheduled_event,
            "eventId": event_id,
            "scheduleArn": schedule_arn,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.scheduled_event import ScheduledEvent # noqa: PLC0415
        d = dict(src_dict)
        scheduled_event = ScheduledEvent.from_dict(d.pop("scheduledEvent"))




        event_id = d.pop("eventId")

        schedule_arn = d.pop("scheduleArn")

        errors = cast(list[str], d.pop("errors", UNSET))


        created_answer = cls(
            scheduled_event=scheduled_event,
            event_id=event_id,
            schedule_arn=schedule_arn,
            errors=errors,
        )


        created_answer.additional_properties = d
        return created_answer

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
