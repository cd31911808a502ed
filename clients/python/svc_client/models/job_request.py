from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JobRequest")



@_attrs_define
class JobRequest:
    """ 
        Attributes:
            table_id (str):
            job_id (str):
     """

    table_id: str
    job_id: str





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        job_id = self.job_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "jobId": job_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        job_id = d.pop("jobId")

        job_request = cls(
            table_id=table_id,
            job_id=job_id,
        )

        return job_request

