from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.replayed_execution import ReplayedExecution





T = TypeVar("T", bound="ReplayAnswer")



@_attrs_define
class ReplayAnswer:
    """ 
        Attributes:
            matched (int):
            replayed (int):
            executions (list[ReplayedExecution]):
            not_found (list[str] | Unset):
            dry_run (bool | Unset):  Default: False.
            errors (list[str] | Unset):
     """

    matched: int
    replayed: int
    executions: list[ReplayedExecution]
    not_found: list[str] | Unset = UNSET
    dry_run: bool | Unset = False
    errors: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.replayed_execution import ReplayedExecution # noqa: PLC0415
        matched = self.matched

        replayed = self.replayed

        executions = []
        for executions_item_data in self.executions:
            executions_item = executions_item_data.to_dict()
            executions.append(executions_item)



        not_found: list[str] | Unset = UNSET
        if not isinstance(self.not_found, Unset):
            not_found = self.not_found



        dry_run = self.dry_run

        errors: list[str] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "matched": matched,
            "replayed": replayed,
            "executions": executions,
        })
        if not_found is not UNSET:
            field_dict["notFound"] = not_found
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.replayed_execution import ReplayedExecution # noqa: PLC0415
        d = dict(src_dict)
        matched = d.pop("matched")

        replayed = d.pop("replayed")

        executions = []
        _executions = d.pop("executions")
        for executions_item_data in (_executions):
            executions_item = ReplayedExecution.from_dict(executions_item_data)



            executions.append(executions_item)


        not_found = cast(list[str], d.pop("notFound", UNSET))


        dry_run = d.pop("dryRun", UNSET)

        errors = cast(list[str], d.pop("errors", UNSET))


        replay_answer = cls(
            matched=matched,
            replayed=replayed,
            executions=executions,
            not_found=not_found,
            dry_run=dry_run,
            errors=errors,
        )


        replay_answer.additional_properties = d
        return replay_answer

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
