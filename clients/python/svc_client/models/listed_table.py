from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.listed_table_level import ListedTableLevel
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.listed_column import ListedColumn





T = TypeVar("T", bound="ListedTable")



@_attrs_define
class ListedTable:
    """ 
        Attributes:
            table_id (str):
            sql_name (str):
            name (str):
            level (ListedTableLevel): The caller's grant: READ or WRITE (WRITE for company admins)
            row_filtered (bool): The caller's grant has a row filter: queries see only its rows
            semantics_version (int):
            columns (list[ListedColumn]): The columns the grant shows (hidden ones left out)
            description (None | str | Unset):
            grain (None | str | Unset):
     """

    table_id: str
    sql_name: str
    name: str
    level: ListedTableLevel
    row_filtered: bool
    semantics_version: int
    columns: list[ListedColumn]
    description: None | str | Unset = UNSET
    grain: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.listed_column import ListedColumn # noqa: PLC0415
        table_id = self.table_id

        sql_name = self.sql_name

        name = self.name

        level = self.level.value

        row_filtered = self.row_filtered

        semantics_version = self.semantics_version

        columns = []
        for columns_item_data in self.columns:
            columns_item = columns_item_data.to_dict()
            columns.append(columns_item)



        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        grain: None | str | Unset
        if isinstance(self.grain, Unset):
            grain = UNSET
        else:
            grain = self.grain


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "tableId": table_id,
            "sqlName": sql_name,
            "name": name,
            "level": level,
            "rowFiltered": row_filtered,
            "semanticsVersion": semantics_version,
            "columns": columns,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if grain is not UNSET:
            field_dict["grain"] = grain

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.listed_column import ListedColumn # noqa: PLC0415
        d = dict(src_dict)
        table_id = d.pop("tableId")

        sql_name = d.pop("sqlName")

        name = d.pop("name")

        level = ListedTableLevel(d.pop("level"))




        row_filtered = d.pop("rowFiltered")

        semantics_version = d.pop("semanticsVersion")

        columns = []
        _columns = d.pop("columns")
        for columns_item_data in (_columns):
            columns_item = ListedColumn.from_dict(columns_item_data)



            columns.append(columns_item)


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_grain(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        grain = _parse_grain(d.pop("grain", UNSET))


        listed_table = cls(
            table_id=table_id,
            sql_name=sql_name,
            name=name,
            level=level,
            row_filtered=row_filtered,
            semantics_version=semantics_version,
            columns=columns,
            description=description,
            grain=grain,
        )


        listed_table.additional_properties = d
        return listed_table

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
