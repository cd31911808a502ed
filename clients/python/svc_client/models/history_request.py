from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.execution_status import ExecutionStatus
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="HistoryRequest")



@_attrs_define
class HistoryRequest:
    """ 
        Attributes:
            webhook_id (str):
            status (ExecutionStatus | None | Unset):
            page (int | Unset):  Default: 0.
            size (int | Unset):  Default: 20.
            from_ (datetime.datetime | None | Unset):
            to (datetime.datetime | None | Unset):
            body_contains (None | str | Unset):
            execution_id (None | str | Unset):
     """

    webhook_id: str
    status: ExecutionStatus | None | Unset = UNSET
    page: int | Unset = 0
    size: int | Unset = 20
    from_: datetime.datetime | None | Unset = UNSET
    to: datetime.datetime | None | Unset = UNSET
    body_contains: None | str | Unset = UNSET
    execution_id: None | str | Unset = UNSET





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

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        elif isinstance(self.from_, datetime.datetime):
            from_ = self.from_.isoformat()
        else:
            from_ = self.from_

        to: None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        elif isinstance(self.to, datetime.datetime):
            to = self.to.isoformat()
        else:
            to = self.to

        body_contains: None | str | Unset
        if isinstance(self.body_contains, Unset):
            body_contains = UNSET
        else:
            body_contains = self.body_contains

        execution_id: None | str | Unset
        if isinstance(self.execution_id, Unset):
            execution_id = UNSET
        else:
            execution_id = self.execution_id


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
        if from_ is not UNSET:
            field_dict["from"] = from_
        if to is not UNSET:
            field_dict["to"] = to
        if body_contains is not UNSET:
            field_dict["bodyContains"] = body_contains
        if execution_id is not UNSET:
            field_dict["executionId"] = execution_id

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

        def _parse_from_(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_type_0 = datetime.datetime.fromisoformat(data)



                return from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))


        def _parse_to(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                to_type_0 = datetime.datetime.fromisoformat(data)



                return to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        to = _parse_to(d.pop("to", UNSET))


        def _parse_body_contains(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body_contains = _parse_body_contains(d.pop("bodyContains", UNSET))


        def _parse_execution_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        execution_id = _parse_execution_id(d.pop("executionId", UNSET))


        history_request = cls(
            webhook_id=webhook_id,
            status=status,
            page=page,
            size=size,
            from_=from_,
            to=to,
            body_contains=body_contains,
            execution_id=execution_id,
        )

        return history_request

