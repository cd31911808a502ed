from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.cron_spec import CronSpec
  from ..models.every_spec import EverySpec
  from ..models.once_spec import OnceSpec





T = TypeVar("T", bound="SchedulePreviewRequest")



@_attrs_define
class SchedulePreviewRequest:
    """ Exactly one source of a schedule (a ``scheduleSpec``, a ``cronExpression`` with ``timezone``, or a
    stored event's ``scheduledEventId``), how many fire times, and after which instant.

        Attributes:
            schedule_spec (CronSpec | EverySpec | None | OnceSpec | Unset):
            cron_expression (None | str | Unset):
            timezone (None | str | Unset):
            scheduled_event_id (None | str | Unset):
            count (int | Unset):  Default: 10.
            from_ (datetime.datetime | None | Unset):
     """

    schedule_spec: CronSpec | EverySpec | None | OnceSpec | Unset = UNSET
    cron_expression: None | str | Unset = UNSET
    timezone: None | str | Unset = UNSET
    scheduled_event_id: None | str | Unset = UNSET
    count: int | Unset = 10
    from_: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.cron_spec import CronSpec # noqa: PLC0415
        from ..models.every_spec import EverySpec # noqa: PLC0415
        from ..models.once_spec import OnceSpec # noqa: PLC0415
        schedule_spec: dict[str, Any] | None | Unset
        if isinstance(self.schedule_spec, Unset):
            schedule_spec = UNSET
        elif isinstance(self.schedule_spec, EverySpec):
            schedule_spec = self.schedule_spec.to_dict()
        elif isinstance(self.schedule_spec, CronSpec):
            schedule_spec = self.schedule_spec.to_dict()
        elif isinstance(self.schedule_spec, OnceSpec):
            schedule_spec = self.schedule_spec.to_dict()
        else:
            schedule_spec = self.schedule_spec

        cron_expression: None | str | Unset
        if isinstance(self.cron_expression, Unset):
            cron_expression = UNSET
        else:
            cron_expression = self.cron_expression

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        scheduled_event_id: None | str | Unset
        if isinstance(self.scheduled_event_id, Unset):
            scheduled_event_id = UNSET
        else:
            scheduled_event_id = self.scheduled_event_id

        count = self.count

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        elif isinstance(self.from_, datetime.datetime):
            from_ = self.from_.isoformat()
        else:
            from_ = self.from_


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if schedule_spec is not UNSET:
            field_dict["scheduleSpec"] = schedule_spec
        if cron_expression is not UNSET:
            field_dict["cronExpression"] = cron_expression
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if scheduled_event_id is not UNSET:
            field_dict["scheduledEventId"] = scheduled_event_id
        if count is not UNSET:
            field_dict["count"] = count
        if from_ is not UNSET:
            field_dict["from"] = from_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cron_spec import CronSpec # noqa: PLC0415
        from ..models.every_spec import EverySpec # noqa: PLC0415
        from ..models.once_spec import OnceSpec # noqa: PLC0415
        d = dict(src_dict)
        def _parse_schedule_spec(data: object) -> CronSpec | EverySpec | None | OnceSpec | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schedule_spec_type_0_type_0 = EverySpec.from_dict(data)



                return schedule_spec_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schedule_spec_type_0_type_1 = CronSpec.from_dict(data)



                return schedule_spec_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schedule_spec_type_0_type_2 = OnceSpec.from_dict(data)



                return schedule_spec_type_0_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CronSpec | EverySpec | None | OnceSpec | Unset, data)

        schedule_spec = _parse_schedule_spec(d.pop("scheduleSpec", UNSET))


        def _parse_cron_expression(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cron_expression = _parse_cron_expression(d.pop("cronExpression", UNSET))


        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))


        def _parse_scheduled_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scheduled_event_id = _parse_scheduled_event_id(d.pop("scheduledEventId", UNSET))


        count = d.pop("count", UNSET)

        def _parse_from_(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_type_0 = datetime.datetime.fromisoformat(data)



                return from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))


        schedule_preview_request = cls(
            schedule_spec=schedule_spec,
            cron_expression=cron_expression,
            timezone=timezone,
            scheduled_event_id=scheduled_event_id,
            count=count,
            from_=from_,
        )

        return schedule_preview_request

