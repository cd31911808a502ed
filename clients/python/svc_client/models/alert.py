from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.alert_state import AlertState
from ..models.condition_type import ConditionType
from ..models.resolved_by import ResolvedBy
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.alert_item import AlertItem
  from ..models.subject import Subject





T = TypeVar("T", bound="Alert")



@_attrs_define
class Alert:
    """ 
        Attributes:
            alert_id (str):
            rule_id (str):
            condition (ConditionType):
            subject (Subject):
            state (AlertState):
            count (int):
            first_item_at (None | str):
            last_item_at (None | str):
            opened_at (str):
            acknowledged_at (None | str | Unset):
            resolved_at (None | str | Unset):
            resolved_by (None | ResolvedBy | Unset):
            items (list[AlertItem] | None | Unset):
     """

    alert_id: str
    rule_id: str
    condition: ConditionType
    subject: Subject
    state: AlertState
    count: int
    first_item_at: None | str
    last_item_at: None | str
    opened_at: str
    acknowledged_at: None | str | Unset = UNSET
    resolved_at: None | str | Unset = UNSET
    resolved_by: None | ResolvedBy | Unset = UNSET
    items: list[AlertItem] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.alert_item import AlertItem # noqa: PLC0415
        from ..models.subject import Subject # noqa: PLC0415
        alert_id = self.alert_id

        rule_id = self.rule_id

        condition = self.condition.value

        subject = self.subject.to_dict()

        state = self.state.value

        count = self.count

        first_item_at: None | str
        first_item_at = self.first_item_at

        last_item_at: None | str
        last_item_at = self.last_item_at

        opened_at = self.opened_at

        acknowledged_at: None | str | Unset
        if isinstance(self.acknowledged_at, Unset):
            acknowledged_at = UNSET
        else:
            acknowledged_at = self.acknowledged_at

        resolved_at: None | str | Unset
        if isinstance(self.resolved_at, Unset):
            resolved_at = UNSET
        else:
            resolved_at = self.resolved_at

        resolved_by: None | str | Unset
        if isinstance(self.resolved_by, Unset):
            resolved_by = UNSET
        elif isinstance(self.resolved_by, ResolvedBy):
            resolved_by = self.resolved_by.value
        else:
            resolved_by = self.resolved_by

        items: list[dict[str, Any]] | None | Unset
        if isinstance(self.items, Unset):
            items = UNSET
        elif isinstance(self.items, list):
            items = []
            for items_type_0_item_data in self.items:
                items_type_0_item = items_type_0_item_data.to_dict()
                items.append(items_type_0_item)


        else:
            items = self.items


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "alertId": alert_id,
            "ruleId": rule_id,
            "condition": condition,
            "subject": subject,
            "state": state,
            "count": count,
            "firstItemAt": first_item_at,
            "lastItemAt": last_item_at,
            "openedAt": opened_at,
        })
        if acknowledged_at is not UNSET:
            field_dict["acknowledgedAt"] = acknowledged_at
        if resolved_at is not UNSET:
            field_dict["resolvedAt"] = resolved_at
        if resolved_by is not UNSET:
            field_dict["resolvedBy"] = resolved_by
        if items is not UNSET:
            field_dict["items"] = items

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.alert_item import AlertItem # noqa: PLC0415
        from ..models.subject import Subject # noqa: PLC0415
        d = dict(src_dict)
        alert_id = d.pop("alertId")

        rule_id = d.pop("ruleId")

        condition = ConditionType(d.pop("condition"))




        subject = Subject.from_dict(d.pop("subject"))




        state = AlertState(d.pop("state"))




        count = d.pop("count")

        def _parse_first_item_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        first_item_at = _parse_first_item_at(d.pop("firstItemAt"))


        def _parse_last_item_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_item_at = _parse_last_item_at(d.pop("lastItemAt"))


        opened_at = d.pop("openedAt")

        def _parse_acknowledged_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        acknowledged_at = _parse_acknowledged_at(d.pop("acknowledgedAt", UNSET))


        def _parse_resolved_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolved_at = _parse_resolved_at(d.pop("resolvedAt", UNSET))


        def _parse_resolved_by(data: object) -> None | ResolvedBy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                resolved_by_type_0 = ResolvedBy(data)



                return resolved_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResolvedBy | Unset, data)

        resolved_by = _parse_resolved_by(d.pop("resolvedBy", UNSET))


        def _parse_items(data: object) -> list[AlertItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                items_type_0 = []
                _items_type_0 = data
                for items_type_0_item_data in (_items_type_0):
                    items_type_0_item = AlertItem.from_dict(items_type_0_item_data)



                    items_type_0.append(items_type_0_item)

                return items_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AlertItem] | None | Unset, data)

        items = _parse_items(d.pop("items", UNSET))


        alert = cls(
            alert_id=alert_id,
            rule_id=rule_id,
            condition=condition,
            subject=subject,
            state=state,
            count=count,
            first_item_at=first_item_at,
            last_item_at=last_item_at,
            opened_at=opened_at,
            acknowledged_at=acknowledged_at,
            resolved_at=resolved_at,
            resolved_by=resolved_by,
            items=items,
        )


        alert.additional_properties = d
        return alert

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
