from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.column_spec_maskstrategy import ColumnSpecMaskstrategy
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ColumnSpec")



@_attrs_define
class ColumnSpec:
    """ 
        Attributes:
            name (str):
            type_ (str):
            nullable (bool | Unset):  Default: True.
            description (None | str | Unset):
            synonyms (list[str] | Unset):
            masked (bool | Unset):  Default: False.
            mask_strategy (ColumnSpecMaskstrategy | Unset):  Default: ColumnSpecMaskstrategy.FULL.
     """

    name: str
    type_: str
    nullable: bool | Unset = True
    description: None | str | Unset = UNSET
    synonyms: list[str] | Unset = UNSET
    masked: bool | Unset = False
    mask_strategy: ColumnSpecMaskstrategy | Unset = ColumnSpecMaskstrategy.FULL





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        type_ = self.type_

        nullable = self.nullable

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        synonyms: list[str] | Unset = UNSET
        if not isinstance(self.synonyms, Unset):
            synonyms = self.synonyms



        masked = self.masked

        mask_strategy: str | Unset = UNSET
        if not isinstance(self.mask_strategy, Unset):
            mask_strategy = self.mask_strategy.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "type": type_,
        })
        if nullable is not UNSET:
            field_dict["nullable"] = nullable
        if description is not UNSET:
            field_dict["description"] = description
        if synonyms is not UNSET:
            field_dict["synonyms"] = synonyms
        if masked is not UNSET:
            field_dict["masked"] = masked
        if mask_strategy is not UNSET:
            field_dict["maskStrategy"] = mask_strategy

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        type_ = d.pop("type")

        nullable = d.pop("nullable", UNSET)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        synonyms = cast(list[str], d.pop("synonyms", UNSET))


        masked = d.pop("masked", UNSET)

        _mask_strategy = d.pop("maskStrategy", UNSET)
        mask_strategy: ColumnSpecMaskstrategy | Unset
        if isinstance(_mask_strategy,  Unset):
            mask_strategy = UNSET
        else:
            mask_strategy = ColumnSpecMaskstrategy(_mask_strategy)




        column_spec = cls(
            name=name,
            type_=type_,
            nullable=nullable,
            description=description,
            synonyms=synonyms,
            masked=masked,
            mask_strategy=mask_strategy,
        )

        return column_spec

