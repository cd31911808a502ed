from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.complete_request_partetags import CompleteRequestPartetags





T = TypeVar("T", bound="CompleteRequest")



@_attrs_define
class CompleteRequest:
    """ 
        Attributes:
            upload_id (str):
            s_3_key (str):
            part_e_tags (CompleteRequestPartetags):
     """

    upload_id: str
    s_3_key: str
    part_e_tags: CompleteRequestPartetags





    def to_dict(self) -> dict[str, Any]:
        from ..models.complete_request_partetags import CompleteRequestPartetags # noqa: PLC0415
        upload_id = self.upload_id

        s_3_key = self.s_3_key

        part_e_tags = self.part_e_tags.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "uploadId": upload_id,
            "s3Key": s_3_key,
            "partETags": part_e_tags,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.complete_request_partetags import CompleteRequestPartetags # noqa: PLC0415
        d = dict(src_dict)
        upload_id = d.pop("uploadId")

        s_3_key = d.pop("s3Key")

        part_e_tags = CompleteRequestPartetags.from_dict(d.pop("partETags"))




        complete_request = cls(
            upload_id=upload_id,
            s_3_key=s_3_key,
            part_e_tags=part_e_tags,
        )

        return complete_request

