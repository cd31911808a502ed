from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.every_config import EveryConfig





T = TypeVar("T", bound="EverySpec")



@_attrs_define
class EverySpec:
    """ 
        Attributes:
            pattern (Literal['EVERY']):
            every (EveryConfig):
     """

    pattern: Literal['EVERY']
    every: EveryConfig





    def to_dict(self) -> dict[str, Any]:
        from ..models.every_config import EveryConfig # noqa: PLC0415
        pattern = self.pattern

        every = self.every.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "pattern": pattern,
            "every": every,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.every_config import EveryConfig # noqa: PLC0415
        d = dict(src_dict)
        pattern = cast(Literal['EVERY'] , d.pop("pattern"))
        if pattern != 'EVERY':
            raise ValueError(f"pattern must match const 'EVERY', got '{pattern}'")

        every = EveryConfig.from_dict(d.pop("every"))




        every_spec = cls(
            pattern=pattern,
            every=every,
        )

        return every_spec

