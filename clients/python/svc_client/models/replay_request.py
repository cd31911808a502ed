from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.replay_filter import ReplayFilter





T = TypeVar("T", bound="ReplayRequest")



@_attrs_define
class ReplayRequest:
    """ 
        Attributes:
            webhook_id (str):
            execution_ids (list[str] | None | Unset):
            filter_ (None | ReplayFilter | Unset):
            dry_run (bool | Unset):  Default: False.
            limit (int | Unset):  Default: 1000.
     """

    webhook_id: str
    execution_ids: list[str] | None | Unset = UNSET
    filter_: None | ReplayFilter | Unset = UNSET
    dry_run: bool | Unset = False
    limit: int | Unset = 1000





    def to_dict(self) -> dict[str, Any]:
        from ..models.replay_filter import ReplayFilter # noqa: PLC0415
        webhook_id = self.webhook_id

        execution_ids: list[str] | None | Unset
        if isinstance(self.execution_ids, Unset):
            execution_ids = UNSET
        elif isinstance(self.execution_ids, list):
            execution_ids = self.execution_ids


        else:
            execution_ids = self.execution_ids

        filter_: dict[str, Any] | None | Unset
        if isinstance(self.filter_, Unset):
            filter_ = UNSET
        elif isinstance(self.filter_, ReplayFilter):
            filter_ = self.filter_.to_dict()
        else:
            filter_ = self.filter_

        dry_run = self.dry_run

        limit = self.limit


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "webhookId": webhook_id,
        })
        if execution_ids is not UNSET:
            field_dict["executionIds"] = execution_ids
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run
        if limit is not UNSET:
            field_dict["limit"] = limit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.replay_filter import ReplayFilter # noqa: PLC0415
        d = dict(src_dict)
        webhook_id = d.pop("webhookId")

        def _parse_execution_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                execution_ids_type_0 = cast(list[str], data)

                return execution_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        execution_ids = _parse_execution_ids(d.pop("executionIds", UNSET))


        def _parse_filter_(data: object) -> None | ReplayFilter | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                filter_type_0 = ReplayFilter.from_dict(data)



                return filter_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReplayFilter | Unset, data)

        filter_ = _parse_filter_(d.pop("filter", UNSET))


        dry_run = d.pop("dryRun", UNSET)

        limit = d.pop("limit", UNSET)

        replay_request = cls(
            webhook_id=webhook_id,
            execution_ids=execution_ids,
            filter_=filter_,
            dry_run=dry_run,
            limit=limit,
        )

        return replay_request

