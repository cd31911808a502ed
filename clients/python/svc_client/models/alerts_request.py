from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.alert_state import AlertState
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AlertsRequest")



@_attrs_define
class AlertsRequest:
    """ Alerts of the company, the most recently opened first; ``cursor`` is the previous page's
    ``nextCursor``.

        Attributes:
            state (AlertState | None | Unset):
            rule_id (None | str | Unset):
            limit (int | Unset):  Default: 50.
            cursor (None | str | Unset):
     """

    state: AlertState | None | Unset = UNSET
    rule_id: None | str | Unset = UNSET
    limit: int | Unset = 50
    cursor: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, AlertState):
            state = self.state.value
        else:
            state = self.state

        rule_id: None | str | Unset
        if isinstance(self.rule_id, Unset):
            rule_id = UNSET
        else:
            rule_id = self.rule_id

        limit = self.limit

        cursor: None | str | Unset
        if isinstance(self.cursor, Unset):
            cursor = UNSET
        else:
            cursor = self.cursor


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if state is not UNSET:
            field_dict["state"] = state
        if rule_id is not UNSET:
            field_dict["ruleId"] = rule_id
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_state(data: object) -> AlertState | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_0 = AlertState(data)



                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AlertState | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))


        def _parse_rule_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rule_id = _parse_rule_id(d.pop("ruleId", UNSET))


        limit = d.pop("limit", UNSET)

        def _parse_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cursor = _parse_cursor(d.pop("cursor", UNSET))


        alerts_request = cls(
            state=state,
            rule_id=rule_id,
            limit=limit,
            cursor=cursor,
        )

        return alerts_request

