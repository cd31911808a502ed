from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.execution_entry import ExecutionEntry





T = TypeVar("T", bound="HistoryAnswer")



@_attrs_define
class HistoryAnswer:
    """ 
        Attributes:
            history (list[ExecutionEntry]):
            total_pages (int):
            total_elements (int):
            current_page (int):
            search_limited (bool | Unset):  Default: False.
            errors (list[str] | Unset):
     """

    history: list[ExecutionEntry]
    total_pages: int
    total_elements: int
    current_page: int
    search_limited: bool | Unset = False
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.execution_entry import ExecutionEntry # noqa: PLC0415
        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)



        total_pages = self.total_pages

        total_elements = self.total_elements

        current_page = self.current_page

        search_limited = self.search_limited

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "history": history,
            "totalPages": total_pages,
            "totalElements": total_elements,
            "currentPage": current_page,
        })
        if search_limited is not UNSET:
            field_dict["searchLimited"] = search_limited
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.execution_entry import ExecutionEntry # noqa: PLC0415
        d = dict(src_dict)
        history = []
        _history = d.pop("history")
        for history_item_data in (_history):
            history_item = ExecutionEntry.from_dict(history_item_data)



            history.append(history_item)


        total_pages = d.pop("totalPages")

        total_elements = d.pop("totalElements")

        current_page = d.pop("currentPage")

        search_limited = d.pop("searchLimited", UNSET)

        errors = cast(list[str], d.pop("errors", UNSET))


        history_answer = cls(
            history=history,
            total_pages=total_pages,
            total_elements=total_elements,
            current_page=current_page,
            search_limited=search_limited,
            errors=errors,
        )


        history_answer.additional_properties = d
        return history_answer

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
