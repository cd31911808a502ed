from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_kind import JobKind
from ..models.job_state import JobState
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="JobsRequest")



@_attrs_define
class JobsRequest:
    """ 
        Attributes:
            table_id (str):
            kind (JobKind | None | Unset):
            state (JobState | None | Unset):
            mine (bool | Unset):  Default: False.
            limit (int | Unset):  Default: 25.
            cursor (None | str | Unset):
     """

    table_id: str
    kind: JobKind | None | Unset = UNSET
    state: JobState | None | Unset = UNSET
    mine: bool | Unset = False
    limit: int | Unset = 25
    cursor: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, JobKind):
            kind = self.kind.value
        else:
            kind = self.kind

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, JobState):
            state = self.state.value
        else:
            state = self.state

        mine = self.mine

        limit = self.limit

        cursor: None | str | Unset
        if isinstance(self.cursor, Unset):
            cursor = UNSET
        else:
            cursor = self.cursor


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
        })
        if kind is not UNSET:
            field_dict["kind"] = kind
        if state is not UNSET:
            field_dict["state"] = state
        if mine is not UNSET:
            field_dict["mine"] = mine
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        def _parse_kind(data: object) -> JobKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_0 = JobKind(data)



                return kind_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobKind | None | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))


        def _parse_state(data: object) -> JobState | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_0 = JobState(data)



                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobState | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        mine = d.pop("mine", UNSET)

        limit = d.pop("limit", UNSET)

        def _parse_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cursor = _parse_cursor(d.pop("cursor", UNSET))


        jobs_request = cls(
            table_id=table_id,
            kind=kind,
            state=state,
            mine=mine,
            limit=limit,
            cursor=cursor,
        )

        return jobs_request

