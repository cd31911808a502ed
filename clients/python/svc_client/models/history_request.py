from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.execution_status import ExecutionStatus
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="HistoryRequest")



@_attrs_define
class HistoryRequest:
    """ 
        Attributes:
            webhook_id (str):
            status (ExecutionStatus | None | Unset):
            page (int | Unset):  Default: 0.
            size (int | Unset):  Default: 20.
     """

    webhook_id: str
    status: ExecutionStatus | None | Unset = UNSET
    page: int | Unset = 0
    size: int | Unset = 20





    def to_dict(self) -> dict[str, Any]:
        webhook_id = self.webhook_id

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, ExecutionStatus):
            status = self.status.value
        else:
            status = self.status

        page = self.page

        size = self.size


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
        })
        if status is not UNSET:
            field_dict["status"] = status
        if page is not UNSET:
            field_dict["page"] = page
        if size is not UNSET:
            field_dict["size"] = size

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        def _parse_status(data: object) -> ExecutionStatus | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = ExecutionStatus(data)



                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExecutionStatus | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        page = d.pop("page", UNSET)

        size = d.pop("size", UNSET)

        history_request = cls(
            webhook_id=webhook_id,
            status=status,
            page=page,
            size=size,
        )

        return history_request

