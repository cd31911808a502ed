from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.destination_answer_state import DestinationAnswerState
from typing import cast






T = TypeVar("T", bound="DestinationAnswer")



@_attrs_define
class DestinationAnswer:
    """ 
        Attributes:
            resource_id (str):
            name (str):
            type_ (str):
            state (DestinationAnswerState):
            since (str):
            last_error (None | str):
            last_error_at (None | str):
            in_flight (int):
            waiting (int):
            max_concurrency (int):
            max_per_second (float | None):
            retry_after_until (None | str):
            next_probe_at (None | str):
     """

    resource_id: str
    name: str
    type_: str
    state: DestinationAnswerState
    since: str
    last_error: None | str
    last_error_at: None | str
    in_flight: int
    waiting: int
    max_concurrency: int
    max_per_second: float | None
    retry_after_until: None | str
    next_probe_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        resource_id = self.resource_id

        name = self.name

        type_ = self.type_

        state = self.state.value

        since = self.since

        last_error: None | str
        last_error = self.last_error

        last_error_at: None | str
        last_error_at = self.last_error_at

        in_flight = self.in_flight

        waiting = self.waiting

        max_concurrency = self.max_concurrency

        max_per_second: float | None
        max_per_second = self.max_per_second

        retry_after_until: None | str
        retry_after_until = self.retry_after_until

        next_probe_at: None | str
        next_probe_at = self.next_probe_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "resourceId": resource_id,
            "name": name,
            "type": type_,
            "state": state,
            "since": since,
            "lastError": last_error,
            "lastErrorAt": last_error_at,
            "inFlight": in_flight,
            "waiting": waiting,
            "maxConcurrency": max_concurrency,
            "maxPerSecond": max_per_second,
            "retryAfterUntil": retry_after_until,
            "nextProbeAt": next_probe_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        resource_id = d.pop("resourceId")

        name = d.pop("name")

        type_ = d.pop("type")

        state = DestinationAnswerState(d.pop("state"))




        since = d.pop("since")

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("lastError"))


        def _parse_last_error_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error_at = _parse_last_error_at(d.pop("lastErrorAt"))


        in_flight = d.pop("inFlight")

        waiting = d.pop("waiting")

        max_concurrency = d.pop("maxConcurrency")

        def _parse_max_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_per_second = _parse_max_per_second(d.pop("maxPerSecond"))


        def _parse_retry_after_until(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        retry_after_until = _parse_retry_after_until(d.pop("retryAfterUntil"))


        def _parse_next_probe_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_probe_at = _parse_next_probe_at(d.pop("nextProbeAt"))


        destination_answer = cls(
            resource_id=resource_id,
            name=name,
            type_=type_,
            state=state,
            since=since,
            last_error=last_error,
            last_error_at=last_error_at,
            in_flight=in_flight,
            waiting=waiting,
            max_concurrency=max_concurrency,
            max_per_second=max_per_second,
            retry_after_until=retry_after_until,
            next_probe_at=next_probe_at,
        )


        destination_answer.additional_properties = d
        return destination_answer

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
