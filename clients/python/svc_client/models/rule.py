from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.circuit_open import CircuitOpen
  from ..models.scheduled_run_failed import ScheduledRunFailed
  from ..models.table_failure import TableFailure
  from ..models.webhook_failures import WebhookFailures





T = TypeVar("T", bound="Rule")



@_attrs_define
class Rule:
    """ 
        Attributes:
            rule_id (str):
            name (str):
            condition (CircuitOpen | ScheduledRunFailed | TableFailure | WebhookFailures):
            resolve_after_seconds (int):
            notify (None | str):
            enabled (bool):
            created_at (str):
            updated_at (str):
     """

    rule_id: str
    name: str
    condition: CircuitOpen | ScheduledRunFailed | TableFailure | WebhookFailures
    resolve_after_seconds: int
    notify: None | str
    enabled: bool
    created_at: str
    updated_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.circuit_open import CircuitOpen # noqa: PLC0415
        from ..models.scheduled_run_failed import ScheduledRunFailed # noqa: PLC0415
        from ..models.table_failure import TableFailure # noqa: PLC0415
        from ..models.webhook_failures import WebhookFailures # noqa: PLC0415
        rule_id = self.rule_id

        name = self.name

        condition: dict[str, Any]
        if isinstance(self.condition, WebhookFailures):
            condition = self.condition.to_dict()
        elif isinstance(self.condition, CircuitOpen):
            condition = self.condition.to_dict()
        elif isinstance(self.condition, ScheduledRunFailed):
            condition = self.condition.to_dict()
        else:
            condition = self.condition.to_dict()


        resolve_after_seconds = self.resolve_after_seconds

        notify: None | str
        notify = self.notify

        enabled = self.enabled

        created_at = self.created_at

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ruleId": rule_id,
            "name": name,
            "condition": condition,
            "resolveAfterSeconds": resolve_after_seconds,
            "notify": notify,
            "enabled": enabled,
            "createdAt": created_at,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.circuit_open import CircuitOpen # noqa: PLC0415
        from ..models.scheduled_run_failed import ScheduledRunFailed # noqa: PLC0415
        from ..models.table_failure import TableFailure # noqa: PLC0415
        from ..models.webhook_failures import WebhookFailures # noqa: PLC0415
        d = dict(src_dict)
        rule_id = d.pop("ruleId")

        name = d.pop("name")

        def _parse_condition(data: object) -> CircuitOpen | ScheduledRunFailed | TableFailure | WebhookFailures:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_0 = WebhookFailures.from_dict(data)



                return condition_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_1 = CircuitOpen.from_dict(data)



                return condition_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_2 = ScheduledRunFailed.from_dict(data)



                return condition_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            condition_type_3 = TableFailure.from_dict(data)



            return condition_type_3

        condition = _parse_condition(d.pop("condition"))


        resolve_after_seconds = d.pop("resolveAfterSeconds")

        def _parse_notify(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        notify = _parse_notify(d.pop("notify"))


        enabled = d.pop("enabled")

        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        rule = cls(
            rule_id=rule_id,
            name=name,
            condition=condition,
            resolve_after_seconds=resolve_after_seconds,
            notify=notify,
            enabled=enabled,
            created_at=created_at,
            updated_at=updated_at,
        )


        rule.additional_properties = d
        return rule

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
