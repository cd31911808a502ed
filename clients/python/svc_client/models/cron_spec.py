from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.cron_config import CronConfig





T = TypeVar("T", bound="CronSpec")



@_attrs_define
class CronSpec:
    """ 
        Attributes:
            pattern (Literal['CRON']):
            cron (CronConfig):
     """

    pattern: Literal['CRON']
    cron: CronConfig





    def to_dict(self) -> dict[str, Any]:
        from ..models.cron_config import CronConfig # noqa: PLC0415
        pattern = self.pattern

        cron = self.cron.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "pattern": pattern,
            "cron": cron,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cron_config import CronConfig # noqa: PLC0415
        d = dict(src_dict)
        pattern = cast(Literal['CRON'] , d.pop("pattern"))
        if pattern != 'CRON':
            raise ValueError(f"pattern must match const 'CRON', got '{pattern}'")

        cron = CronConfig.from_dict(d.pop("cron"))




        cron_spec = cls(
            pattern=pattern,
            cron=cron,
        )

        return cron_spec

