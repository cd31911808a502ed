from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.row_error import RowError





T = TypeVar("T", bound="AppendRowsAnswer")



@_attrs_define
class AppendRowsAnswer:
    """ 
        Attributes:
            accepted (int):
            load_id (None | str):
            errors (list[RowError] | Unset):
     """

    accepted: int
    load_id: None | str
    errors: list[RowError] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.row_error import RowError # noqa: PLC0415
        accepted = self.accepted

        load_id: None | str
        load_id = self.load_id

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "accepted": accepted,
            "loadId": load_id,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.row_error import RowError # noqa: PLC0415
        d = dict(src_dict)
        accepted = d.pop("accepted")

        def _parse_load_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        load_id = _parse_load_id(d.pop("loadId"))


        _errors = d.pop("errors", UNSET)
        errors: list[RowError] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = RowError.from_dict(errors_item_data)



                errors.append(errors_item)


        append_rows_answer = cls(
            accepted=accepted,
            load_id=load_id,
            errors=errors,
        )


        append_rows_answer.additional_properties = d
        return append_rows_answer

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
