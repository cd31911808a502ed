from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PartUrlsRequest")



@_attrs_define
class PartUrlsRequest:
    """ 
        Attributes:
            upload_id (str):
            s_3_key (str):
            part_numbers (list[int]):
     """

    upload_id: str
    s_3_key: str
    part_numbers: list[int]





    def to_dict(self) -> dict[str, Any]:
        upload_id = self.upload_id

        s_3_key = self.s_3_key

        part_numbers = self.part_numbers




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "uploadId": upload_id,
            "s3Key": s_3_key,
            "partNumbers": part_numbers,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        upload_id = d.pop("uploadId")

        s_3_key = d.pop("s3Key")

        part_numbers = cast(list[int], d.pop("partNumbers"))


        part_urls_request = cls(
            upload_id=upload_id,
            s_3_key=s_3_key,
            part_numbers=part_numbers,
        )

        return part_urls_request

