from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.run_entry import RunEntry





T = TypeVar("T", bound="RunsAnswer")



@_attrs_define
class RunsAnswer:
    """ 
        Attributes:
            runs (list[RunEntry]):
            page (int):
            size (int):
            total_elements (int):
            total_pages (int):
            errors (list[str] | Unset):
     """

    runs: list[RunEntry]
    page: int
    size: int
    total_elements: int
    total_pages: int
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.run_entry import RunEntry # noqa: PLC0415
        runs = []
        for runs_item_data in self.runs:
            runs_item = runs_item_data.to_dict()
            runs.append(runs_item)



        page = self.page

        size = self.size

        total_elements = self.total_elements

        total_pages = self.total_pages

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "runs": runs,
            "page": page,
            "size": size,
            "totalElements": total_elements,
            "totalPages": total_pages,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_entry import RunEntry # noqa: PLC0415
        d = dict(src_dict)
        runs = []
        _runs = d.pop("runs")
        for runs_item_data in (_runs):
            runs_item = RunEntry.from_dict(runs_item_data)



            runs.append(runs_item)


        page = d.pop("page")

        size = d.pop("size")

        total_elements = d.pop("totalElements")

        total_pages = d.pop("totalPages")

        errors = cast(list[str], d.pop("errors", UNSET))


        runs_answer = cls(
            runs=runs,
            page=page,
            size=size,
            total_elements=total_elements,
            total_pages=total_pages,
            errors=errors,
        )


        runs_answer.additional_properties = d
        return runs_answer

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
