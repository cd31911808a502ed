from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="MaintenanceReport")



@_attrs_define
class MaintenanceReport:
    """ 
        Attributes:
            files_before (int): Data files of the current snapshot before the call
            files_after (int): Data files of the current snapshot after it (dry run: predicted)
            snapshots_expired (int):
            orphans_removed (int):
            bytes_reclaimed (int): Bytes of the files deleted: expired snapshots' and orphans
            more_to_compact (bool): Small files were left for another call (the per-call caps), or the compaction yielded
            errors (list[str] | Unset):
     """

    files_before: int
    files_after: int
    snapshots_expired: int
    orphans_removed: int
    bytes_reclaimed: int
    more_to_compact: bool
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        files_before = self.files_before

        files_after = self.files_after

        snapshots_expired = self.snapshots_expired

        orphans_removed = self.orphans_removed

        bytes_reclaimed = self.bytes_reclaimed

        more_to_compact = self.more_to_compact

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "filesBefore": files_before,
            "filesAfter": files_after,
            "snapshotsExpired": snapshots_expired,
            "orphansRemoved": orphans_removed,
            "bytesReclaimed": bytes_reclaimed,
            "moreToCompact": more_to_compact,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        files_before = d.pop("filesBefore")

        files_after = d.pop("filesAfter")

        snapshots_expired = d.pop("snapshotsExpired")

        orphans_removed = d.pop("orphansRemoved")

        bytes_reclaimed = d.pop("bytesReclaimed")

        more_to_compact = d.pop("moreToCompact")

        errors = cast(list[str], d.pop("errors", UNSET))


        maintenance_report = cls(
            files_before=files_before,
            files_after=files_after,
            snapshots_expired=snapshots_expired,
            orphans_removed=orphans_removed,
            bytes_reclaimed=bytes_reclaimed,
            more_to_compact=more_to_compact,
            errors=errors,
        )


        maintenance_report.additional_properties = d
        return maintenance_report

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
