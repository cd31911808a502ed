from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.download_request_format import DownloadRequestFormat
from ..types import UNSET, Unset






T = TypeVar("T", bound="DownloadRequest")



@_attrs_define
class DownloadRequest:
    """ 
        Attributes:
            table_id (str):
            job_id (str):
            format_ (DownloadRequestFormat | Unset):  Default: DownloadRequestFormat.CSV.
            reveal (bool | Unset):  Default: False.
     """

    table_id: str
    job_id: str
    format_: DownloadRequestFormat | Unset = DownloadRequestFormat.CSV
    reveal: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        job_id = self.job_id

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value


        reveal = self.reveal


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "jobId": job_id,
        })
        if format_ is not UNSET:
            field_dict["format"] = format_
        if reveal is not UNSET:
            field_dict["reveal"] = reveal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        job_id = d.pop("jobId")

        _format_ = d.pop("format", UNSET)
        format_: DownloadRequestFormat | Unset
        if isinstance(_format_,  Unset):
            format_ = UNSET
        else:
            format_ = DownloadRequestFormat(_format_)




        reveal = d.pop("reveal", UNSET)

        download_request = cls(
            table_id=table_id,
            job_id=job_id,
            format_=format_,
            reveal=reveal,
        )

        return download_request

