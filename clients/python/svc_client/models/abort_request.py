from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="AbortRequest")



@_attrs_define
class AbortRequest:
    """ Ends an incomplete upload: its parts are deleted and its quota is freed.

        Attributes:
            upload_id (str):
            s_3_key (str):
     """

    upload_id: str
    s_3_key: str





    def to_dict(self) -> dict[str, Any]:
        upload_id = self.upload_id

        s_3_key = self.s_3_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "uploadId": upload_id,
            "s3Key": s_3_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        upload_id = d.pop("uploadId")

        s_3_key = d.pop("s3Key")

        abort_request = cls(
            upload_id=upload_id,
            s_3_key=s_3_key,
        )

        return abort_request

