from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RetentionUpdate")



@_attrs_define
class RetentionUpdate:
    """ Values to set, each between one hour and ten years; ``null`` goes back to the service's value, an
    omitted field is left as it is.

        Attributes:
            history_seconds (int | None | Unset):
            runs_seconds (int | None | Unset):
            jobs_seconds (int | None | Unset):
     """

    history_seconds: int | None | Unset = UNSET
    runs_seconds: int | None | Unset = UNSET
    jobs_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        history_seconds: int | None | Unset
        if isinstance(self.history_seconds, Unset):
            history_seconds = UNSET
        else:
            history_seconds = self.history_seconds

        runs_seconds: int | None | Unset
        if isinstance(self.runs_seconds, Unset):
            runs_seconds = UNSET
        else:
            runs_seconds = self.runs_seconds

        jobs_seconds: int | None | Unset
        if isinstance(self.jobs_seconds, Unset):
            jobs_seconds = UNSET
        else:
            jobs_seconds = self.jobs_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if history_seconds is not UNSET:
            field_dict["historySeconds"] = history_seconds
        if runs_seconds is not UNSET:
            field_dict["runsSeconds"] = runs_seconds
        if jobs_seconds is not UNSET:
            field_dict["jobsSeconds"] = jobs_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_history_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        history_seconds = _parse_history_seconds(d.pop("historySeconds", UNSET))


        def _parse_runs_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        runs_seconds = _parse_runs_seconds(d.pop("runsSeconds", UNSET))


        def _parse_jobs_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        jobs_seconds = _parse_jobs_seconds(d.pop("jobsSeconds", UNSET))


        retention_update = cls(
            history_seconds=history_seconds,
            runs_seconds=runs_seconds,
            jobs_seconds=jobs_seconds,
        )

        return retention_update

