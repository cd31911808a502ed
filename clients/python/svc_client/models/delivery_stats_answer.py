from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stats_window import StatsWindow
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.stats_bucket import StatsBucket





T = TypeVar("T", bound="DeliveryStatsAnswer")



@_attrs_define
class DeliveryStatsAnswer:
    """ 
        Attributes:
            window (StatsWindow):
            bucket_seconds (int):
            since (str):
            until (str):
            total (int):
            buckets (list[StatsBucket]):
            p_50_ms (int | None | Unset):
            p_99_ms (int | None | Unset):
            truncated (bool | Unset):  Default: False.
            errors (list[str] | Unset):
     """

    window: StatsWindow
    bucket_seconds: int
    since: str
    until: str
    total: int
    buckets: list[StatsBucket]
    p_50_ms: int | None | Unset = UNSET
    p_99_ms: int | None | Unset = UNSET
    truncated: bool | Unset = False
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.stats_bucket import StatsBucket # noqa: PLC0415
        window = self.window.value

        bucket_seconds = self.bucket_seconds

        since = self.since

        until = self.until

        total = self.total

        buckets = []
        for buckets_item_data in self.buckets:
            buckets_item = buckets_item_data.to_dict()
            buckets.append(buckets_item)



        p_50_ms: int | None | Unset
        if isinstance(self.p_50_ms, Unset):
            p_50_ms = UNSET
        else:
            p_50_ms = self.p_50_ms

        p_99_ms: int | None | Unset
        if isinstance(self.p_99_ms, Unset):
            p_99_ms = UNSET
        else:
            p_99_ms = self.p_99_ms

        truncated = self.truncated

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "window": window,
            "bucketSeconds": bucket_seconds,
            "since": since,
            "until": until,
            "total": total,
            "buckets": buckets,
        })
        if p_50_ms is not UNSET:
            field_dict["p50Ms"] = p_50_ms
        if p_99_ms is not UNSET:
            field_dict["p99Ms"] = p_99_ms
        if truncated is not UNSET:
            field_dict["truncated"] = truncated
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.stats_bucket import StatsBucket # noqa: PLC0415
        d = dict(src_dict)
        window = StatsWindow(d.pop("window"))




        bucket_seconds = d.pop("bucketSeconds")

        since = d.pop("since")

        until = d.pop("until")

        total = d.pop("total")

        buckets = []
        _buckets = d.pop("buckets")
        for buckets_item_data in (_buckets):
            buckets_item = StatsBucket.from_dict(buckets_item_data)



            buckets.append(buckets_item)


        def _parse_p_50_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        p_50_ms = _parse_p_50_ms(d.pop("p50Ms", UNSET))


        def _parse_p_99_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        p_99_ms = _parse_p_99_ms(d.pop("p99Ms", UNSET))


        truncated = d.pop("truncated", UNSET)

        errors = cast(list[str], d.pop("errors", UNSET))


        delivery_stats_answer = cls(
            window=window,
            bucket_seconds=bucket_seconds,
            since=since,
            until=until,
            total=total,
            buckets=buckets,
            p_50_ms=p_50_ms,
            p_99_ms=p_99_ms,
            truncated=truncated,
            errors=errors,
        )


        delivery_stats_answer.additional_properties = d
        return delivery_stats_answer

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
