from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RetentionAnswer")



@_attrs_define
class RetentionAnswer:
    """ The values in force for the caller's company: its own where it set them, the service's elsewhere.

        Attributes:
            history_seconds (int):
            runs_seconds (int):
            jobs_seconds (int):
     """

    history_seconds: int
    runs_seconds: int
    jobs_seconds: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        history_seconds = self.history_seconds

        runs_seconds = self.runs_seconds

        jobs_seconds = self.jobs_seconds


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "historySeconds": history_seconds,
            "runsSeconds": runs_seconds,
            "jobsSeconds": jobs_seconds,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        history_seconds = d.pop("historySeconds")

        runs_seconds = d.pop("runsSeconds")

        jobs_seconds = d.pop("jobsSeconds")

        retention_answer = cls(
            history_seconds=history_seconds,
            runs_seconds=runs_seconds,
            jobs_seconds=jobs_seconds,
        )


        retention_answer.additional_properties = d
        return retention_answer

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
