from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.execution_status import ExecutionStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.execution_details import ExecutionDetails





T = TypeVar("T", bound="ExecutionEntry")



@_attrs_define
class ExecutionEntry:
    """ 
        Attributes:
            id (str):
            execution_id (str):
            webhook_id (str):
            resource_type (None | str):
            resource_id (None | str):
            queued_at (str):
            started_at (None | str):
            ended_at (None | str):
            duration_ms (int | None):
            status (ExecutionStatus):
            attempt_number (int):
            execution_details (ExecutionDetails):
            waited_ms (int | None | Unset):
     """

    id: str
    execution_id: str
    webhook_id: str
    resource_type: None | str
    resource_id: None | str
    queued_at: str
    started_at: None | str
    ended_at: None | str
    duration_ms: int | None
    status: ExecutionStatus
    attempt_number: int
    execution_details: ExecutionDetails
    waited_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.execution_details import ExecutionDetails # noqa: PLC0415
        id = self.id

        execution_id = self.execution_id

        webhook_id = self.webhook_id

        resource_type: None | str
        resource_type = self.resource_type

        resource_id: None | str
        resource_id = self.resource_id

        queued_at = self.queued_at

        started_at: None | str
        started_at = self.started_at

        ended_at: None | str
        ended_at = self.ended_at

        duration_ms: int | None
        duration_ms = self.duration_ms

        status = self.status.value

        attempt_number = self.attempt_number

        execution_details = self.execution_details.to_dict()

        waited_ms: int | None | Unset
        if isinstance(self.waited_ms, Unset):
            waited_ms = UNSET
        else:
            waited_ms = self.waited_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "executionId": execution_id,
            "webhookId": webhook_id,
            "resourceType": resource_type,
            "resourceId": resource_id,
            "queuedAt": queued_at,
            "startedAt": started_at,
            "endedAt": ended_at,
            "durationMs": duration_ms,
            "status": status,
            "attemptNumber": attempt_number,
            "executionDetails": execution_details,
        })
        if waited_ms is not UNSET:
            field_dict["waitedMs"] = waited_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.execution_details import ExecutionDetails # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        execution_id = d.pop("executionId")

        webhook_id = d.pop("webhookId")

        def _parse_resource_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resource_type = _parse_resource_type(d.pop("resourceType"))


        def _parse_resource_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        resource_id = _parse_resource_id(d.pop("resourceId"))


        queued_at = d.pop("queuedAt")

        def _parse_started_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        started_at = _parse_started_at(d.pop("startedAt"))


        def _parse_ended_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ended_at = _parse_ended_at(d.pop("endedAt"))


        def _parse_duration_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        duration_ms = _parse_duration_ms(d.pop("durationMs"))


        status = ExecutionStatus(d.pop("status"))




        attempt_number = d.pop("attemptNumber")

        execution_details = ExecutionDetails.from_dict(d.pop("executionDetails"))




        def _parse_waited_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        waited_ms = _parse_waited_ms(d.pop("waitedMs", UNSET))


        execution_entry = cls(
            id=id,
            execution_id=execution_id,
            webhook_id=webhook_id,
            resource_type=resource_type,
            resource_id=resource_id,
            queued_at=queued_at,
            started_at=started_at,
            ended_at=ended_at,
            duration_ms=duration_ms,
            status=status,
            attempt_number=attempt_number,
            execution_details=execution_details,
            waited_ms=waited_ms,
        )


        execution_entry.additional_properties = d
        return execution_entry

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
