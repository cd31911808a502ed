from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.maintenance_action import MaintenanceAction
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="MaintainRequest")



@_attrs_define
class MaintainRequest:
    """ 
        Attributes:
            table_id (str):
            actions (list[MaintenanceAction]): Any of COMPACT, EXPIRE_SNAPSHOTS, REMOVE_ORPHANS; always run in that order
            dry_run (bool | Unset): Report what would be done and change nothing Default: False.
     """

    table_id: str
    actions: list[MaintenanceAction]
    dry_run: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.value
            actions.append(actions_item)



        dry_run = self.dry_run


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tableId": table_id,
            "actions": actions,
        })
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        table_id = d.pop("tableId")

        actions = []
        _actions = d.pop("actions")
        for actions_item_data in (_actions):
            actions_item = MaintenanceAction(actions_item_data)



            actions.append(actions_item)


        dry_run = d.pop("dryRun", UNSET)

        maintain_request = cls(
            table_id=table_id,
            actions=actions,
            dry_run=dry_run,
        )

        return maintain_request

