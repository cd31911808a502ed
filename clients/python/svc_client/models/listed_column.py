from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.listed_column_mask_strategy_type_0 import ListedColumnMaskStrategyType0
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ListedColumn")



@_attrs_define
class ListedColumn:
    """ 
        Attributes:
            name (str):
            type_ (str):
            nullable (bool):
            description (None | str | Unset):
            masked (bool | Unset):  Default: False.
            mask_strategy (ListedColumnMaskStrategyType0 | None | Unset): FULL or LAST4 when masked, else null
            revealable (bool | Unset): A masked column this caller may reveal (reveal: true) Default: False.
     """

    name: str
    type_: str
    nullable: bool
    description: None | str | Unset = UNSET
    masked: bool | Unset = False
    mask_strategy: ListedColumnMaskStrategyType0 | None | Unset = UNSET
    revealable: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        type_ = self.type_

        nullable = self.nullable

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        masked = self.masked

        mask_strategy: None | str | Unset
        if isinstance(self.mask_strategy, Unset):
            mask_strategy = UNSET
        elif isinstance(self.mask_strategy, ListedColumnMaskStrategyType0):
            mask_strategy = self.mask_strategy.value
        else:
            mask_strategy = self.mask_strategy

        revealable = self.revealable


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "type": type_,
            "nullable": nullable,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if masked is not UNSET:
            field_dict["masked"] = masked
        if mask_strategy is not UNSET:
            field_dict["maskStrategy"] = mask_strategy
        if revealable is not UNSET:
            field_dict["revealable"] = revealable

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        type_ = d.pop("type")

        nullable = d.pop("nullable")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        masked = d.pop("masked", UNSET)

        def _parse_mask_strategy(data: object) -> ListedColumnMaskStrategyType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mask_strategy_type_0 = ListedColumnMaskStrategyType0(data)



                return mask_strategy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ListedColumnMaskStrategyType0 | None | Unset, data)

        mask_strategy = _parse_mask_strategy(d.pop("maskStrategy", UNSET))


        revealable = d.pop("revealable", UNSET)

        listed_column = cls(
            name=name,
            type_=type_,
            nullable=nullable,
            description=description,
            masked=masked,
            mask_strategy=mask_strategy,
            revealable=revealable,
        )


        listed_column.additional_properties = d
        return listed_column

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
