from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.destination_answer import DestinationAnswer





T = TypeVar("T", bound="DestinationsAnswer")



@_attrs_define
class DestinationsAnswer:
    """ 
        Attributes:
            destinations (list[DestinationAnswer]):
            errors (list[str] | Unset):
     """

    destinations: list[DestinationAnswer]
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.destination_answer import DestinationAnswer # noqa: PLC0415
        destinations = []
        for destinations_item_data in self.destinations:
            destinations_item = destinations_item_data.to_dict()
            destinations.append(destinations_item)



        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "destinations": destinations,
        })
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.destination_answer import DestinationAnswer # noqa: PLC0415
        d = dict(src_dict)
        destinations = []
        _destinations = d.pop("destinations")
        for destinations_item_data in (_destinations):
            destinations_item = DestinationAnswer.from_dict(destinations_item_data)



            destinations.append(destinations_item)


        errors = cast(list[str], d.pop("errors", UNSET))


        destinations_answer = cls(
            destinations=destinations,
            errors=errors,
        )


        destinations_answer.additional_properties = d
        return destinations_answer

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
