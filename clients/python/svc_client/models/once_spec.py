from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.once_config import OnceConfig





T = TypeVar("T", bound="OnceSpec")



@_attrs_define
class OnceSpec:
    """ 
        Attributes:
            pattern (Literal['ONCE']):
            once (OnceConfig):
     """

    pattern: Literal['ONCE']
    once: OnceConfig





    def to_dict(self) -> dict[str, Any]:
        from ..models.once_config import OnceConfig # noqa: PLC0415
        pattern = self.pattern

        once = self.once.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "pattern": pattern,
            "once": once,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.once_config import OnceConfig # noqa: PLC0415
        d = dict(src_dict)
        pattern = cast(Literal['ONCE'] , d.pop("pattern"))
        if pattern != 'ONCE':
            raise ValueError(f"pattern must match const 'ONCE', got '{pattern}'")

        once = OnceConfig.from_dict(d.pop("once"))




        once_spec = cls(
            pattern=pattern,
            once=once,
        )

        return once_spec

