from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.circuit_open import CircuitOpen
  from ..models.scheduled_run_failed import ScheduledRunFailed
  from ..models.table_failure import TableFailure
  from ..models.webhook_failures import WebhookFailures





T = TypeVar("T", bound="CreateRuleRequest")



@_attrs_define
class CreateRuleRequest:
    """ 
        Attributes:
            name (str):
            condition (CircuitOpen | ScheduledRunFailed | TableFailure | WebhookFailures):
            resolve_after_seconds (int | Unset):  Default: 300.
            notify (None | str | Unset):
            enabled (bool | Unset):  Default: True.
     """

    name: str
    condition: CircuitOpen | ScheduledRunFailed | TableFailure | WebhookFailures
    resolve_after_seconds: int | Unset = 300
    notify: None | str | Unset = UNSET
    enabled: bool | Unset = True





    def to_dict(self) -> dict[str, Any]:
        from ..models.circuit_open import CircuitOpen # noqa: PLC0415
        from ..models.scheduled_run_failed import ScheduledRunFailed # noqa: PLC0415
        from ..models.table_failure import TableFailure # noqa: PLC0415
        from ..models.webhook_failures import WebhookFailures # noqa: PLC0415
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

        notify: None | str | Unset
        if isinstance(self.notify, Unset):
            notify = UNSET
        else:
            notify = self.notify

        enabled = self.enabled


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "condition": condition,
        })
        if resolve_after_seconds is not UNSET:
            field_dict["resolveAfterSeconds"] = resolve_after_seconds
        if notify is not UNSET:
            field_dict["notify"] = notify
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.circuit_open import CircuitOpen # noqa: PLC0415
        from ..models.scheduled_run_failed import ScheduledRunFailed # noqa: PLC0415
        from ..models.table_failure import TableFailure # noqa: PLC0415
        from ..models.webhook_failures import WebhookFailures # noqa: PLC0415
        d = dict(src_dict)
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


        resolve_after_seconds = d.pop("resolveAfterSeconds", UNSET)

        def _parse_notify(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        notify = _parse_notify(d.pop("notify", UNSET))


        enabled = d.pop("enabled", UNSET)

        create_rule_request = cls(
            name=name,
            condition=condition,
            resolve_after_seconds=resolve_after_seconds,
            notify=notify,
            enabled=enabled,
        )

        return create_rule_request

