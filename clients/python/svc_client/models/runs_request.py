from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.run_status import RunStatus
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RunsRequest")



@_attrs_define
class RunsRequest:
    """ 
        Attributes:
            scheduled_event_id (str):
            page (int | Unset):  Default: 0.
            size (int | Unset):  Default: 25.
            status (None | RunStatus | Unset):
     """

    scheduled_event_id: str
    page: int | Unset = 0
    size: int | Unset = 25
    status: None | RunStatus | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        scheduled_event_id = self.scheduled_event_id

        page = self.page

        size = self.size

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, RunStatus):
            status = self.status.value
        else:
            status = self.status


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "scheduledEventId": scheduled_event_id,
        })
        if page is not UNSET:
            field_dict["page"] = page
        if size is not UNSET:
            field_dict["size"] = size
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scheduled_event_id = d.pop("scheduledEventId")

        page = d.pop("page", UNSET)

        size = d.pop("size", UNSET)

        def _parse_status(data: object) -> None | RunStatus | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = RunStatus(data)



                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunStatus | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        runs_request = cls(
            scheduled_event_id=scheduled_event_id,
            page=page,
            size=size,
            status=status,
        )

        return runs_request

