from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.stats_bucket_counts import StatsBucketCounts





T = TypeVar("T", bound="StatsBucket")



@_attrs_define
class StatsBucket:
    """ 
        Attributes:
            start (str):
            counts (StatsBucketCounts):
            p_50_ms (int | None | Unset):
            p_99_ms (int | None | Unset):
     """

    start: str
    counts: StatsBucketCounts
    p_50_ms: int | None | Unset = UNSET
    p_99_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.stats_bucket_counts import StatsBucketCounts # noqa: PLC0415
        start = self.start

        counts = self.counts.to_dict()

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


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "start": start,
            "counts": counts,
        })
        if p_50_ms is not UNSET:
            field_dict["p50Ms"] = p_50_ms
        if p_99_ms is not UNSET:
            field_dict["p99Ms"] = p_99_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.stats_bucket_counts import StatsBucketCounts # noqa: PLC0415
        d = dict(src_dict)
        start = d.pop("start")

        counts = StatsBucketCounts.from_dict(d.pop("counts"))




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


        stats_bucket = cls(
            start=start,
            counts=counts,
            p_50_ms=p_50_ms,
            p_99_ms=p_99_ms,
        )


        stats_bucket.additional_properties = d
        return stats_bucket

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
