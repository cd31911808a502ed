from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.action_after_completion import ActionAfterCompletion
from ..models.action_type import ActionType
from ..models.overlap_policy import OverlapPolicy
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.dead_letter_config import DeadLetterConfig
  from ..models.flexible_time_window import FlexibleTimeWindow
  from ..models.retry_policy import RetryPolicy
  from ..models.scheduled_event_agent_config_type_0 import ScheduledEventAgentConfigType0
  from ..models.scheduled_event_schedulespec import ScheduledEventSchedulespec
  from ..models.scheduled_event_svc_db_config_type_0 import ScheduledEventSvcDbConfigType0
  from ..models.scheduled_event_tool_config_type_0 import ScheduledEventToolConfigType0





T = TypeVar("T", bound="ScheduledEvent")



@_attrs_define
class ScheduledEvent:
    """ 
        Attributes:
            event_id (str):
            company_id (str):
            owner_id (str):
            event_name (str):
            schedule_spec (ScheduledEventSchedulespec):
            cron_expression (str):
            enabled (bool):
            action_type (ActionType):
            schedule_arn (str):
            created_at (str):
            updated_at (str):
            description (None | str | Unset):
            timezone (None | str | Unset):
            sharing_level (str | Unset):  Default: 'COMPANY'.
            company_permission_level (str | Unset):  Default: 'ADMIN'.
            user_permission (str | Unset):  Default: 'ADMIN'.
            agent_config (None | ScheduledEventAgentConfigType0 | Unset):
            tool_config (None | ScheduledEventToolConfigType0 | Unset):
            svc_db_config (None | ScheduledEventSvcDbConfigType0 | Unset):
            next_fire_at (None | str | Unset):
            last_fired_at (None | str | Unset):
            start_date (None | str | Unset):
            end_date (None | str | Unset):
            action_after_completion (ActionAfterCompletion | Unset): What happens to an event once it has nothing left to
                fire (EventBridge Scheduler's values).
            paused_until (None | str | Unset):
            retry_policy (RetryPolicy | Unset): Sent whole: a retryPolicy on /update replaces the stored one, a field left
                out takes its default.
            dead_letter_config (DeadLetterConfig | Unset): EventBridge takes an SQS queue's arn; svc publishes to its own
                topic, so this is only a switch.
            catchup_window_seconds (int | Unset):  Default: 3600.
            overlap_policy (OverlapPolicy | Unset): What a fire does while an earlier run of its event is still in progress
                (Temporal's names).
            flexible_time_window (FlexibleTimeWindow | Unset): As in EventBridge Scheduler: maximumWindowInMinutes with
                FLEXIBLE only, and required there.
            deleted_at (None | str | Unset):
     """

    event_id: str
    company_id: str
    owner_id: str
    event_name: str
    schedule_spec: ScheduledEventSchedulespec
    cron_expression: str
    enabled: bool
    action_type: ActionType
    schedule_arn: str
    created_at: str
    updated_at: str
    description: None | str | Unset = UNSET
    timezone: None | str | Unset = UNSET
    sharing_level: str | Unset = 'COMPANY'
    company_permission_level: str | Unset = 'ADMIN'
    user_permission: str | Unset = 'ADMIN'
    agent_config: None | ScheduledEventAgentConfigType0 | Unset = UNSET
    tool_config: None | ScheduledEventToolConfigType0 | Unset = UNSET
    svc_db_config: None | ScheduledEventSvcDbConfigType0 | Unset = UNSET
    next_fire_at: None | str | Unset = UNSET
    last_fired_at: None | str | Unset = UNSET
    start_date: None | str | Unset = UNSET
    end_date: None | str | Unset = UNSET
    action_after_completion: ActionAfterCompletion | Unset = UNSET
    paused_until: None | str | Unset = UNSET
    retry_policy: RetryPolicy | Unset = UNSET
    dead_letter_config: DeadLetterConfig | Unset = UNSET
    catchup_window_seconds: int | Unset = 3600
    overlap_policy: OverlapPolicy | Unset = UNSET
    flexible_time_window: FlexibleTimeWindow | Unset = UNSET
    deleted_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.dead_letter_config import DeadLetterConfig # noqa: PLC0415
        from ..models.flexible_time_window import FlexibleTimeWindow # noqa: PLC0415
        from ..models.retry_policy import RetryPolicy # noqa: PLC0415
        from ..models.scheduled_event_agent_config_type_0 import ScheduledEventAgentConfigType0 # noqa: PLC0415
        from ..models.scheduled_event_schedulespec import ScheduledEventSchedulespec # noqa: PLC0415
        from ..models.scheduled_event_svc_db_config_type_0 import ScheduledEventSvcDbConfigType0 # noqa: PLC0415
        from ..models.scheduled_event_tool_config_type_0 import ScheduledEventToolConfigType0 # noqa: PLC0415
        event_id = self.event_id

        company_id = self.company_id

        owner_id = self.owner_id

        event_name = self.event_name

        schedule_spec = self.schedule_spec.to_dict()

        cron_expression = self.cron_expression

        enabled = self.enabled

        action_type = self.action_type.value

        schedule_arn = self.schedule_arn

        created_at = self.created_at

        updated_at = self.updated_at

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        sharing_level = self.sharing_level

        company_permission_level = self.company_permission_level

        user_permission = self.user_permission

        agent_config: dict[str, Any] | None | Unset
        if isinstance(self.agent_config, Unset):
            agent_config = UNSET
        elif isinstance(self.agent_config, ScheduledEventAgentConfigType0):
            agent_config = self.agent_config.to_dict()
        else:
            agent_config = self.agent_config

        tool_config: dict[str, Any] | None | Unset
        if isinstance(self.tool_config, Unset):
            tool_config = UNSET
        elif isinstance(self.tool_config, ScheduledEventToolConfigType0):
            tool_config = self.tool_config.to_dict()
        else:
            tool_config = self.tool_config

        svc_db_config: dict[str, Any] | None | Unset
        if isinstance(self.svc_db_config, Unset):
            svc_db_config = UNSET
        elif isinstance(self.svc_db_config, ScheduledEventSvcDbConfigType0):
            svc_db_config = self.svc_db_config.to_dict()
        else:
            svc_db_config = self.svc_db_config

        next_fire_at: None | str | Unset
        if isinstance(self.next_fire_at, Unset):
            next_fire_at = UNSET
        else:
            next_fire_at = self.next_fire_at

        last_fired_at: None | str | Unset
        if isinstance(self.last_fired_at, Unset):
            last_fired_at = UNSET
        else:
            last_fired_at = self.last_fired_at

        start_date: None | str | Unset
        if isinstance(self.start_date, Unset):
            start_date = UNSET
        else:
            start_date = self.start_date

        end_date: None | str | Unset
        if isinstance(self.end_date, Unset):
            end_date = UNSET
        else:
            end_date = self.end_date

        action_after_completion: str | Unset = UNSET
        if not isinstance(self.action_after_completion, Unset):
            action_after_completion = self.action_after_completion.value


        paused_until: None | str | Unset
        if isinstance(self.paused_until, Unset):
            paused_until = UNSET
        else:
            paused_until = self.paused_until

        retry_policy: dict[str, Any] | Unset = UNSET
        if not isinstance(self.retry_policy, Unset):
            retry_policy = self.retry_policy.to_dict()

        dead_letter_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.dead_letter_config, Unset):
            dead_letter_config = self.dead_letter_config.to_dict()

        catchup_window_seconds = self.catchup_window_seconds

        overlap_policy: str | Unset = UNSET
        if not isinstance(self.overlap_policy, Unset):
            overlap_policy = self.overlap_policy.value


        flexible_time_window: dict[str, Any] | Unset = UNSET
        if not isinstance(self.flexible_time_window, Unset):
            flexible_time_window = self.flexible_time_window.to_dict()

        deleted_at: None | str | Unset
        if isinstance(self.deleted_at, Unset):
            deleted_at = UNSET
        else:
            deleted_at = self.deleted_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "eventId": event_id,
            "companyId": company_id,
            "ownerId": owner_id,
            "eventName": event_name,
            "scheduleSpec": schedule_spec,
            "cronExpression": cron_expression,
            "enabled": enabled,
            "actionType": action_type,
            "scheduleArn": schedule_arn,
            "createdAt": created_at,
            "updatedAt": updated_at,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if sharing_level is not UNSET:
            field_dict["sharingLevel"] = sharing_level
        if company_permission_level is not UNSET:
            field_dict["companyPermissionLevel"] = company_permission_level
        if user_permission is not UNSET:
            field_dict["userPermission"] = user_permission
        if agent_config is not UNSET:
            field_dict["agentConfig"] = agent_config
        if tool_config is not UNSET:
            field_dict["toolConfig"] = tool_config
        if svc_db_config is not UNSET:
            field_dict["svcDbConfig"] = svc_db_config
        if next_fire_at is not UNSET:
            field_dict["nextFireAt"] = next_fire_at
        if last_fired_at is not UNSET:
            field_dict["lastFiredAt"] = last_fired_at
        if start_date is not UNSET:
            field_dict["startDate"] = start_date
        if end_date is not UNSET:
            field_dict["endDate"] = end_date
        if action_after_completion is not UNSET:
            field_dict["actionAfterCompletion"] = action_after_completion
        if paused_until is not UNSET:
            field_dict["pausedUntil"] = paused_until
        if retry_policy is not UNSET:
            field_dict["retryPolicy"] = retry_policy
        if dead_letter_config is not UNSET:
            field_dict["deadLetterConfig"] = dead_letter_config
        if catchup_window_seconds is not UNSET:
            field_dict["catchupWindowSeconds"] = catchup_window_seconds
        if overlap_policy is not UNSET:
            field_dict["overlapPolicy"] = overlap_policy
        if flexible_time_window is not UNSET:
            field_dict["flexibleTimeWindow"] = flexible_time_window
        if deleted_at is not UNSET:
            field_dict["deletedAt"] = deleted_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dead_letter_config import DeadLetterConfig # noqa: PLC0415
        from ..models.flexible_time_window import FlexibleTimeWindow # noqa: PLC0415
        from ..models.retry_policy import RetryPolicy # noqa: PLC0415
        from ..models.scheduled_event_agent_config_type_0 import ScheduledEventAgentConfigType0 # noqa: PLC0415
        from ..models.scheduled_event_schedulespec import ScheduledEventSchedulespec # noqa: PLC0415
        from ..models.scheduled_event_svc_db_config_type_0 import ScheduledEventSvcDbConfigType0 # noqa: PLC0415
        from ..models.scheduled_event_tool_config_type_0 import ScheduledEventToolConfigType0 # noqa: PLC0415
        d = dict(src_dict)
        event_id = d.pop("eventId")

        company_id = d.pop("companyId")

        owner_id = d.pop("ownerId")

        event_name = d.pop("eventName")

        schedule_spec = ScheduledEventSchedulespec.from_dict(d.pop("scheduleSpec"))




        cron_expression = d.pop("cronExpression")

        enabled = d.pop("enabled")

        action_type = ActionType(d.pop("actionType"))




        schedule_arn = d.pop("scheduleArn")

        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))


        sharing_level = d.pop("sharingLevel", UNSET)

        company_permission_level = d.pop("companyPermissionLevel", UNSET)

        user_permission = d.pop("userPermission", UNSET)

        def _parse_agent_config(data: object) -> None | ScheduledEventAgentConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                agent_config_type_0 = ScheduledEventAgentConfigType0.from_dict(data)



                return agent_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScheduledEventAgentConfigType0 | Unset, data)

        agent_config = _parse_agent_config(d.pop("agentConfig", UNSET))


        def _parse_tool_config(data: object) -> None | ScheduledEventToolConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_config_type_0 = ScheduledEventToolConfigType0.from_dict(data)



                return tool_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScheduledEventToolConfigType0 | Unset, data)

        tool_config = _parse_tool_config(d.pop("toolConfig", UNSET))


        def _parse_svc_db_config(data: object) -> None | ScheduledEventSvcDbConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                svc_db_config_type_0 = ScheduledEventSvcDbConfigType0.from_dict(data)



                return svc_db_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScheduledEventSvcDbConfigType0 | Unset, data)

        svc_db_config = _parse_svc_db_config(d.pop("svcDbConfig", UNSET))


        def _parse_next_fire_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_fire_at = _parse_next_fire_at(d.pop("nextFireAt", UNSET))


        def _parse_last_fired_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_fired_at = _parse_last_fired_at(d.pop("lastFiredAt", UNSET))


        def _parse_start_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        start_date = _parse_start_date(d.pop("startDate", UNSET))


        def _parse_end_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        end_date = _parse_end_date(d.pop("endDate", UNSET))


        _action_after_completion = d.pop("actionAfterCompletion", UNSET)
        action_after_completion: ActionAfterCompletion | Unset
        if isinstance(_action_after_completion,  Unset):
            action_after_completion = UNSET
        else:
            action_after_completion = ActionAfterCompletion(_action_after_completion)




        def _parse_paused_until(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        paused_until = _parse_paused_until(d.pop("pausedUntil", UNSET))


        _retry_policy = d.pop("retryPolicy", UNSET)
        retry_policy: RetryPolicy | Unset
        if isinstance(_retry_policy,  Unset):
            retry_policy = UNSET
        else:
            retry_policy = RetryPolicy.from_dict(_retry_policy)




        _dead_letter_config = d.pop("deadLetterConfig", UNSET)
        dead_letter_config: DeadLetterConfig | Unset
        if isinstance(_dead_letter_config,  Unset):
            dead_letter_config = UNSET
        else:
            dead_letter_config = DeadLetterConfig.from_dict(_dead_letter_config)




        catchup_window_seconds = d.pop("catchupWindowSeconds", UNSET)

        _overlap_policy = d.pop("overlapPolicy", UNSET)
        overlap_policy: OverlapPolicy | Unset
        if isinstance(_overlap_policy,  Unset):
            overlap_policy = UNSET
        else:
            overlap_policy = OverlapPolicy(_overlap_policy)




        _flexible_time_window = d.pop("flexibleTimeWindow", UNSET)
        flexible_time_window: FlexibleTimeWindow | Unset
        if isinstance(_flexible_time_window,  Unset):
            flexible_time_window = UNSET
        else:
            flexible_time_window = FlexibleTimeWindow.from_dict(_flexible_time_window)




        def _parse_deleted_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deleted_at = _parse_deleted_at(d.pop("deletedAt", UNSET))


        scheduled_event = cls(
            event_id=event_id,
            company_id=company_id,
            owner_id=owner_id,
            event_name=event_name,
            schedule_spec=schedule_spec,
            cron_expression=cron_expression,
            enabled=enabled,
            action_type=action_type,
            schedule_arn=schedule_arn,
            created_at=created_at,
            updated_at=updated_at,
            description=description,
            timezone=timezone,
            sharing_level=sharing_level,
            company_permission_level=company_permission_level,
            user_permission=user_permission,
            agent_config=agent_config,
            tool_config=tool_config,
            svc_db_config=svc_db_config,
            next_fire_at=next_fire_at,
            last_fired_at=last_fired_at,
            start_date=start_date,
            end_date=end_date,
            action_after_completion=action_after_completion,
            paused_until=paused_until,
            retry_policy=retry_policy,
            dead_letter_config=dead_letter_config,
            catchup_window_seconds=catchup_window_seconds,
            overlap_policy=overlap_policy,
            flexible_time_window=flexible_time_window,
            deleted_at=deleted_at,
        )


        scheduled_event.additional_properties = d
        return scheduled_event

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
