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





T = TypeVar("T", bound="UpdateRuleRequest")



@_attrs_define
class UpdateRuleRequest:
    """ The fields to change; an omitted field is left as it is, ``notify: null`` stops notifications.
    ``rotateSecret`` makes a new signing secret, answered once.

        Attributes:
            rule_id (str):
            name (None | str | Unset):
            condition (CircuitOpen | None | ScheduledRunFailed | TableFailure | Unset | WebhookFailures):
            resolve_after_seconds (int | None | Unset):
            notify (None | str | Unset):
            enabled (bool | None | Unset):
            rotate_secret (bool | Unset):  Default: False.
     """

    rule_id: str
    name: None | str | Unset = UNSET
    condition: CircuitOpen | None | ScheduledRunFailed | TableFailure | Unset | WebhookFailures = UNSET
    resolve_after_seconds: int | None | Unset = UNSET
    notify: None | str | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    rotate_secret: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        from ..models.circuit_open import CircuitOpen # noqa: PLC0415
        from ..models.scheduled_run_failed import ScheduledRunFailed # noqa: PLC0415
        from ..models.table_failure import TableFailure # noqa: PLC0415
        from ..models.webhook_failures import WebhookFailures # noqa: PLC0415
        rule_id = self.rule_id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        condition: dict[str, Any] | None | Unset
        if isinstance(self.condition, Unset):
            condition = UNSET
        elif isinstance(self.condition, WebhookFailures):
            condition = self.condition.to_dict()
        elif isinstance(self.condition, CircuitOpen):
            condition = self.condition.to_dict()
        elif isinstance(self.condition, ScheduledRunFailed):
            condition = self.condition.to_dict()
        elif isinstance(self.condition, TableFailure):
            condition = self.condition.to_dict()
        else:
            condition = self.condition

        resolve_after_seconds: int | None | Unset
        if isinstance(self.resolve_after_seconds, Unset):
            resolve_after_seconds = UNSET
        else:
            resolve_after_seconds = self.resolve_after_seconds

        notify: None | str | Unset
        if isinstance(self.notify, Unset):
            notify = UNSET
        else:
            notify = self.notify

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        rotate_secret = self.rotate_secret


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "ruleId": rule_id,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if condition is not UNSET:
            field_dict["condition"] = condition
        if resolve_after_seconds is not UNSET:
            field_dict["resolveAfterSeconds"] = resolve_after_seconds
        if notify is not UNSET:
            field_dict["notify"] = notify
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if rotate_secret is not UNSET:
            field_dict["rotateSecret"] = rotate_secret

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.circuit_open import CircuitOpen # noqa: PLC0415
        from ..models.scheduled_run_failed import ScheduledRunFailed # noqa: PLC0415
        from ..models.table_failure import TableFailure # noqa: PLC0415
        from ..models.webhook_failures import WebhookFailures # noqa: PLC0415
        d = dict(src_dict)
        rule_id = d.pop("ruleId")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_condition(data: object) -> CircuitOpen | None | ScheduledRunFailed | TableFailure | Unset | WebhookFailures:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_0_type_0 = WebhookFailures.from_dict(data)



                return condition_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_0_type_1 = CircuitOpen.from_dict(data)



                return condition_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_0_type_2 = ScheduledRunFailed.from_dict(data)



                return condition_type_0_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                condition_type_0_type_3 = TableFailure.from_dict(data)



                return condition_type_0_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CircuitOpen | None | ScheduledRunFailed | TableFailure | Unset | WebhookFailures, data)

        condition = _parse_condition(d.pop("condition", UNSET))


        def _parse_resolve_after_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        resolve_after_seconds = _parse_resolve_after_seconds(d.pop("resolveAfterSeconds", UNSET))


        def _parse_notify(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        notify = _parse_notify(d.pop("notify", UNSET))


        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))


        rotate_secret = d.pop("rotateSecret", UNSET)

        update_rule_request = cls(
            rule_id=rule_id,
            name=name,
            condition=condition,
            resolve_after_seconds=resolve_after_seconds,
            notify=notify,
            enabled=enabled,
            rotate_secret=rotate_secret,
        )

        return update_rule_request

