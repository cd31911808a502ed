from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast






T = TypeVar("T", bound="CircuitOpen")



@_attrs_define
class CircuitOpen:
    """ A destination's circuit (``resourceId``, or any handler resource of the company) stays OPEN
    ``forSeconds``.

        Attributes:
            type_ (Literal['CIRCUIT_OPEN']):
            for_seconds (int):
            resource_id (None | str | Unset):
     """

    type_: Literal['CIRCUIT_OPEN']
    for_seconds: int
    resource_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        for_seconds = self.for_seconds

        resource_id: None | str | Unset
        if isinstance(self.resource_id, Unset):
            resource_id = UNSET
        else:
            resource_id = self.resource_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
            "forSeconds": for_seconds,
        })
        if resource_id is not UNSET:
            field_dict["resourceId"] = resource_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal['CIRCUIT_OPEN'] , d.pop("type"))
        if type_ != 'CIRCUIT_OPEN':
            raise ValueError(f"type must match const 'CIRCUIT_OPEN', got '{type_}'")

        for_seconds = d.pop("forSeconds")

        def _parse_resource_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resource_id = _parse_resource_id(d.pop("resourceId", UNSET))


        circuit_open = cls(
            type_=type_,
            for_seconds=for_seconds,
            resource_id=resource_id,
        )

        return circuit_open

