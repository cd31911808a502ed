from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="TableSnapshot")



@_attrs_define
class TableSnapshot:
    """ 
        Attributes:
            snapshot_id (str): For FOR VERSION AS OF; a 64-bit id, written as a string
            committed_at (str): When it was committed (UTC); FOR TIMESTAMP AS OF reads it as is
            operation (None | str): APPEND, OVERWRITE, DELETE or REPLACE
            added_rows (int | None):
            added_files (int | None):
            total_rows (int | None):
     """

    snapshot_id: str
    committed_at: str
    operation: None | str
    added_rows: int | None
    added_files: int | None
    total_rows: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        snapshot_id = self.snapshot_id

        committed_at = self.committed_at

        operation: None | str
        operation = self.operation

        added_rows: int | None
        added_rows = self.added_rows

        added_files: int | None
        added_files = self.added_files

        total_rows: int | None
        total_rows = self.total_rows


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "snapshotId": snapshot_id,
            "committedAt": committed_at,
            "operation": operation,
            "addedRows": added_rows,
            "addedFiles": added_files,
            "totalRows": total_rows,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        snapshot_id = d.pop("snapshotId")

        committed_at = d.pop("committedAt")

        def _parse_operation(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        operation = _parse_operation(d.pop("operation"))


        def _parse_added_rows(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        added_rows = _parse_added_rows(d.pop("addedRows"))


        def _parse_added_files(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        added_files = _parse_added_files(d.pop("addedFiles"))


        def _parse_total_rows(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        total_rows = _parse_total_rows(d.pop("totalRows"))


        table_snapshot = cls(
            snapshot_id=snapshot_id,
            committed_at=committed_at,
            operation=operation,
            added_rows=added_rows,
            added_files=added_files,
            total_rows=total_rows,
        )


        table_snapshot.additional_properties = d
        return table_snapshot

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
