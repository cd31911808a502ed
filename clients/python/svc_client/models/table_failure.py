from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="TableFailure")



@_attrs_define
class TableFailure:
    """ A table's writer (an append or svcdb write ending FAILED) or its automatic maintenance fails
    (``tableId``, or any table of the company).

        Attributes:
            type_ (Literal['TABLE_FAILURE']):
            table_id (None | str | Unset):
     """

    type_: Literal['TABLE_FAILURE']
    table_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        table_id: None | str | Unset
        if isinstance(self.table_id, Unset):
            table_id = UNSET
        else:
            table_id = self.table_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if table_id is not UNSET:
            field_dict["tableId"] = table_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['TABLE_FAILURE'] , d.pop("type"))
        if type_ != 'TABLE_FAILURE':
            raise ValueError(f"type must match const 'TABLE_FAILURE', got '{type_}'")

        def _parse_table_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        table_id = _parse_table_id(d.pop("tableId", UNSET))


        table_failure = cls(
            type_=type_,
            table_id=table_id,
        )

        return table_failure

