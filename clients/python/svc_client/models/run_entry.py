from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.action_type import ActionType
from ..models.run_status import RunStatus
from ..models.run_trigger import RunTrigger
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.run_attempt import RunAttempt





T = TypeVar("T", bound="RunEntry")



@_attrs_define
class RunEntry:
    """ 
        Attributes:
            run_id (str):
            event_id (str):
            scheduled_for (str):
            status (RunStatus):
            action_type (ActionType):
            attempt_number (int):
            queued_at (str):
            trigger (RunTrigger | Unset): Why a run exists: a fire of the schedule, a ``/run-now`` or a ``/backfill``.
            started_at (None | str | Unset):
            ended_at (None | str | Unset):
            duration_ms (int | None | Unset):
            lateness_ms (int | None | Unset):
            response (Any | Unset):
            error_message (None | str | Unset):
            attempts (list[RunAttempt] | Unset):
     """

    run_id: str
    event_id: str
    scheduled_for: str
    status: RunStatus
    action_type: ActionType
    attempt_number: int
    queued_at: str
    trigger: RunTrigger | Unset = UNSET
    started_at: None | str | Unset = UNSET
    ended_at: None | str | Unset = UNSET
    duration_ms: int | None | Unset = UNSET
    lateness_ms: int | None | Unset = UNSET
    response: Any | Unset = UNSET
    error_message: None | str | Unset = UNSET
    attempts: list[RunAttempt] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.run_attempt import RunAttempt # noqa: PLC0415
        run_id = self.run_id

        event_id = self.event_id

        scheduled_for = self.scheduled_for

        status = self.status.value

        action_type = self.action_type.value

        attempt_number = self.attempt_number

        queued_at = self.queued_at

        trigger: str | Unset = UNSET
        if not isinstance(self.trigger, Unset):
            trigger = self.trigger.value


        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        else:
            ended_at = self.ended_at

        duration_ms: int | None | Unset
        if isinstance(self.duration_ms, Unset):
            duration_ms = UNSET
        else:
            duration_ms = self.duration_ms

        lateness_ms: int | None | Unset
        if isinstance(self.lateness_ms, Unset):
            lateness_ms = UNSET
        else:
            lateness_ms = self.lateness_ms

        response = self.response

        error_message: None | str | Unset
        if isinstance(self.error_message, Unset):
            error_message = UNSET
        else:
            error_message = self.error_message

        attempts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempts, Unset):
            attempts = []
            for attempts_item_data in self.attempts:
                attempts_item = attempts_item_data.to_dict()
                attempts.append(attempts_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "runId": run_id,
            "eventId": event_id,
            "scheduledFor": scheduled_for,
            "status": status,
            "actionType": action_type,
            "attemptNumber": attempt_number,
            "queuedAt": queued_at,
        })
        if trigger is not UNSET:
            field_dict["trigger"] = trigger
        if started_at is not UNSET:
            field_dict["startedAt"] = started_at
        if ended_at is not UNSET:
            field_dict["endedAt"] = ended_at
        if duration_ms is not UNSET:
            field_dict["durationMs"] = duration_ms
        if lateness_ms is not UNSET:
            field_dict["latenessMs"] = lateness_ms
        if response is not UNSET:
            field_dict["response"] = response
        if error_message is not UNSET:
            field_dict["errorMessage"] = error_message
        if attempts is not UNSET:
            field_dict["attempts"] = attempts

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_attempt import RunAttempt # noqa: PLC0415
        d = dict(src_dict)
        run_id = d.pop("runId")

        event_id = d.pop("eventId")

        scheduled_for = d.pop("scheduledFor")

        status = RunStatus(d.pop("status"))




        action_type = ActionType(d.pop("actionType"))




        attempt_number = d.pop("attemptNumber")

        queued_at = d.pop("queuedAt")

        _trigger = d.pop("trigger", UNSET)
        trigger: RunTrigger | Unset
        if isinstance(_trigger,  Unset):
            trigger = UNSET
        else:
            trigger = RunTrigger(_trigger)




        def _parse_started_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        started_at = _parse_started_at(d.pop("startedAt", UNSET))


        def _parse_ended_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ended_at = _parse_ended_at(d.pop("endedAt", UNSET))


        def _parse_duration_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        duration_ms = _parse_duration_ms(d.pop("durationMs", UNSET))


        def _parse_lateness_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lateness_ms = _parse_lateness_ms(d.pop("latenessMs", UNSET))


        response = d.pop("response", UNSET)

        def _parse_error_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_message = _parse_error_message(d.pop("errorMessage", UNSET))


        _attempts = d.pop("attempts", UNSET)
        attempts: list[RunAttempt] | Unset = UNSET
        if _attempts is not UNSET:
            attempts = []
            for attempts_item_data in _attempts:
                attempts_item = RunAttempt.from_dict(attempts_item_data)



                attempts.append(attempts_item)


        run_entry = cls(
            run_id=run_id,
            event_id=event_id,
            scheduled_for=scheduled_for,
            status=status,
            action_type=action_type,
            attempt_number=attempt_number,
            queued_at=queued_at,
            trigger=trigger,
            started_at=started_at,
            ended_at=ended_at,
            duration_ms=duration_ms,
            lateness_ms=lateness_ms,
            response=response,
            error_message=error_message,
            attempts=attempts,
        )


        run_entry.additional_properties = d
        return run_entry

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
