from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.listed_table import ListedTable





T = TypeVar("T", bound="TablesAnswer")



@_attrs_define
class TablesAnswer:
    """ 
        Attributes:
            tables (list[ListedTable]):
            errors (list[str] | Unset):
     """

    tables: list[ListedTable]
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.listed_table import ListedTable # noqa: PLC0415
        tables = []
        for tables_item_data in self.tables:
            tables_item = tables_item_data.to_dict()
            tables.append(tables_item)



        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "tables": tables,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.listed_table import ListedTable # noqa: PLC0415
        d = dict(src_dict)
        tables = []
        _tables = d.pop("tables")
        for tables_item_data in (_tables):
            tables_item = ListedTable.from_dict(tables_item_data)



            tables.append(tables_item)


        errors = cast(list[str], d.pop("errors", UNSET))


        tables_answer = cls(
            tables=tables,
            errors=errors,
        )


        tables_answer.additional_properties = d
        return tables_answer

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
