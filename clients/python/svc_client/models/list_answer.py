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





T = TypeVar("T", bound="ListAnswer")



@_attrs_define
class ListAnswer:
    """ 
        Attributes:
            owned_events (list[ScheduledEvent]):
            errors (list[str] | Unset):
            company_shared_events (list[ScheduledEvent] | Unset):
            shared_with_me_events (list[ScheduledEvent] | Unset):
     """

    owned_events: list[ScheduledEvent]
    errors: list[str] | Unset = UNSET
    company_shared_events: list[ScheduledEvent] | Unset = UNSET
    shared_with_me_events: list[ScheduledEvent] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.scheduled_event import ScheduledEvent # noqa: PLC0415
        owned_events = []
        for owned_events_item_data in self.owned_events:
            owned_events_item = owned_events_item_data.to_dict()
            owned_events.append(owned_events_item)



        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors



        company_shared_events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.company_shared_events, Unset):
            company_shared_events = []
            for company_shared_events_item_data in self.company_shared_events:
                company_shared_events_item = company_shared_events_item_data.to_dict()
                company_shared_events.append(company_shared_events_item)



        shared_with_me_events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.shared_with_me_events, Unset):
            shared_with_me_events = []
            for shared_with_me_events_item_data in self.shared_with_me_events:
                shared_with_me_events_item = shared_with_me_events_item_data.to_dict()
                shared_with_me_events.append(shared_with_me_events_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ownedEvents": owned_events,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors
        if company_shared_events is not UNSET:
            field_dict["companySharedEvents"] = company_shared_events
        if shared_with_me_events is not UNSET:
            field_dict["sharedWithMeEvents"] = shared_with_me_events

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.scheduled_event import ScheduledEvent # noqa: PLC0415
        d = dict(src_dict)
        owned_events = []
        _owned_events = d.pop("ownedEvents")
        for owned_events_item_data in (_owned_events):
            owned_events_item = ScheduledEvent.from_dict(owned_events_item_data)



            owned_events.append(owned_events_item)


        errors = cast(list[str], d.pop("errors", UNSET))


        _company_shared_events = d.pop("companySharedEvents", UNSET)
        company_shared_events: list[ScheduledEvent] | Unset = UNSET
        if _company_shared_events is not UNSET:
            company_shared_events = []
            for company_shared_events_item_data in _company_shared_events:
                company_shared_events_item = ScheduledEvent.from_dict(company_shared_events_item_data)



                company_shared_events.append(company_shared_events_item)


        _shared_with_me_events = d.pop("sharedWithMeEvents", UNSET)
        shared_with_me_events: list[ScheduledEvent] | Unset = UNSET
        if _shared_with_me_events is not UNSET:
            shared_with_me_events = []
            for shared_with_me_events_item_data in _shared_with_me_events:
                shared_with_me_events_item = ScheduledEvent.from_dict(shared_with_me_events_item_data)



                shared_with_me_events.append(shared_with_me_events_item)


        list_answer = cls(
            owned_events=owned_events,
            errors=errors,
            company_shared_events=company_shared_events,
            shared_with_me_events=shared_with_me_events,
        )


        list_answer.additional_properties = d
        return list_answer

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
