from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="AlertReplayRequest")



@_attrs_define
class AlertReplayRequest:
    """ Re-run the alert's failed deliveries (the executions it lists) through ``/custom-webhooks/replay``.

        Attributes:
            alert_id (str):
            dry_run (bool | Unset):  Default: False.
     """

    alert_id: str
    dry_run: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        alert_id = self.alert_id

        dry_run = self.dry_run


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "alertId": alert_id,
        })
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        alert_id = d.pop("alertId")

        dry_run = d.pop("dryRun", UNSET)

        alert_replay_request = cls(
            alert_id=alert_id,
            dry_run=dry_run,
        )

        return alert_replay_request

