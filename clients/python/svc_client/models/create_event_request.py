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
import datetime

if TYPE_CHECKING:
  from ..models.agent_config import AgentConfig
  from ..models.cron_spec import CronSpec
  from ..models.dead_letter_config import DeadLetterConfig
  from ..models.every_spec import EverySpec
  from ..models.flexible_time_window import FlexibleTimeWindow
  from ..models.once_spec import OnceSpec
  from ..models.retry_policy import RetryPolicy
  from ..models.svc_db_config import SvcDbConfig
  from ..models.tool_config import ToolConfig





T = TypeVar("T", bound="CreateEventRequest")



@_attrs_define
class CreateEventRequest:
    """ 
        Attributes:
            action_type (ActionType):
            catchup_window_seconds (int | None | Unset):
            overlap_policy (None | OverlapPolicy | Unset):
            flexible_time_window (FlexibleTimeWindow | None | Unset):
            retry_policy (None | RetryPolicy | Unset):
            dead_letter_config (DeadLetterConfig | None | Unset):
            start_date (datetime.datetime | None | Unset):
            end_date (datetime.datetime | None | Unset):
            action_after_completion (ActionAfterCompletion | None | Unset):
            description (None | str | Unset):
            schedule_spec (CronSpec | EverySpec | None | OnceSpec | Unset):
            cron_expression (None | str | Unset):
            timezone (None | str | Unset):
            agent_config (AgentConfig | None | Unset):
            tool_config (None | ToolConfig | Unset):
            svc_db_config (None | SvcDbConfig | Unset):
            event_name (None | str | Unset):
            enabled (bool | Unset):  Default: True.
     """

    action_type: ActionType
    catchup_window_seconds: int | None | Unset = UNSET
    overlap_policy: None | OverlapPolicy | Unset = UNSET
    flexible_time_window: FlexibleTimeWindow | None | Unset = UNSET
    retry_policy: None | RetryPolicy | Unset = UNSET
    dead_letter_config: DeadLetterConfig | None | Unset = UNSET
    start_date: datetime.datetime | None | Unset = UNSET
    end_date: datetime.datetime | None | Unset = UNSET
    action_after_completion: ActionAfterCompletion | None | Unset = UNSET
    description: None | str | Unset = UNSET
    schedule_spec: CronSpec | EverySpec | None | OnceSpec | Unset = UNSET
    cron_expression: None | str | Unset = UNSET
    timezone: None | str | Unset = UNSET
    agent_config: AgentConfig | None | Unset = UNSET
    tool_config: None | ToolConfig | Unset = UNSET
    svc_db_config: None | SvcDbConfig | Unset = UNSET
    event_name: None | str | Unset = UNSET
    enabled: bool | Unset = True





    def to_dict(self) -> dict[str, Any]:
        from ..models.agent_config import AgentConfig # noqa: PLC0415
        from ..models.cron_spec import CronSpec # noqa: PLC0415
        from ..models.dead_letter_config import DeadLetterConfig # noqa: PLC0415
        from ..models.every_spec import EverySpec # noqa: PLC0415
        from ..models.flexible_time_window import FlexibleTimeWindow # noqa: PLC0415
        from ..models.once_spec import OnceSpec # noqa: PLC0415
        from ..models.retry_policy import RetryPolicy # noqa: PLC0415
        from ..models.svc_db_config import SvcDbConfig # noqa: PLC0415
        from ..models.tool_config import ToolConfig # noqa: PLC0415
        action_type = self.action_type.value

        catchup_window_seconds: int | None | Unset
        if isinstance(self.catchup_window_seconds, Unset):
            catchup_window_seconds = UNSET
        else:
            catchup_window_seconds = self.catchup_window_seconds

        overlap_policy: None | str | Unset
        if isinstance(self.overlap_policy, Unset):
            overlap_policy = UNSET
        elif isinstance(self.overlap_policy, OverlapPolicy):
            overlap_policy = self.overlap_policy.value
        else:
            overlap_policy = self.overlap_policy

        flexible_time_window: dict[str, Any] | None | Unset
        if isinstance(self.flexible_time_window, Unset):
            flexible_time_window = UNSET
        elif isinstance(self.flexible_time_window, FlexibleTimeWindow):
            flexible_time_window = self.flexible_time_window.to_dict()
        else:
            flexible_time_window = self.flexible_time_window

        retry_policy: dict[str, Any] | None | Unset
        if isinstance(self.retry_policy, Unset):
            retry_policy = UNSET
        elif isinstance(self.retry_policy, RetryPolicy):
            retry_policy = self.retry_policy.to_dict()
        else:
            retry_policy = self.retry_policy

        dead_letter_config: dict[str, Any] | None | Unset
        if isinstance(self.dead_letter_config, Unset):
            dead_letter_config = UNSET
        elif isinstance(self.dead_letter_config, DeadLetterConfig):
            dead_letter_config = self.dead_letter_config.to_dict()
        else:
            dead_letter_config = self.dead_letter_config

        start_date: None | str | Unset
        if isinstance(self.start_date, Unset):
            start_date = UNSET
        elif isinstance(self.start_date, datetime.datetime):
            start_date = self.start_date.isoformat()
        else:
            start_date = self.start_date

        end_date: None | str | Unset
        if isinstance(self.end_date, Unset):
            end_date = UNSET
        elif isinstance(self.end_date, datetime.datetime):
            end_date = self.end_date.isoformat()
        else:
            end_date = self.end_date

        action_after_completion: None | str | Unset
        if isinstance(self.action_after_completion, Unset):
            action_after_completion = UNSET
        elif isinstance(self.action_after_completion, ActionAfterCompletion):
            action_after_completion = self.action_after_completion.value
        else:
            action_after_completion = self.action_after_completion

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

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

        agent_config: dict[str, Any] | None | Unset
        if isinstance(self.agent_config, Unset):
            agent_config = UNSET
        elif isinstance(self.agent_config, AgentConfig):
            agent_config = self.agent_config.to_dict()
        else:
            agent_config = self.agent_config

        tool_config: dict[str, Any] | None | Unset
        if isinstance(self.tool_config, Unset):
            tool_config = UNSET
        elif isinstance(self.tool_config, ToolConfig):
            tool_config = self.tool_config.to_dict()
        else:
            tool_config = self.tool_config

        svc_db_config: dict[str, Any] | None | Unset
        if isinstance(self.svc_db_config, Unset):
            svc_db_config = UNSET
        elif isinstance(self.svc_db_config, SvcDbConfig):
            svc_db_config = self.svc_db_config.to_dict()
        else:
            svc_db_config = self.svc_db_config

        event_name: None | str | Unset
        if isinstance(self.event_name, Unset):
            event_name = UNSET
        else:
            event_name = self.event_name

        enabled = self.enabled


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "actionType": action_type,
        })
        if catchup_window_seconds is not UNSET:
            field_dict["catchupWindowSeconds"] = catchup_window_seconds
        if overlap_policy is not UNSET:
            field_dict["overlapPolicy"] = overlap_policy
        if flexible_time_window is not UNSET:
            field_dict["flexibleTimeWindow"] = flexible_time_window
        if retry_policy is not UNSET:
            field_dict["retryPolicy"] = retry_policy
        if dead_letter_config is not UNSET:
            field_dict["deadLetterConfig"] = dead_letter_config
        if start_date is not UNSET:
            field_dict["startDate"] = start_date
        if end_date is not UNSET:
            field_dict["endDate"] = end_date
        if action_after_completion is not UNSET:
            field_dict["actionAfterCompletion"] = action_after_completion
        if description is not UNSET:
            field_dict["description"] = description
        if schedule_spec is not UNSET:
            field_dict["scheduleSpec"] = schedule_spec
        if cron_expression is not UNSET:
            field_dict["cronExpression"] = cron_expression
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if agent_config is not UNSET:
            field_dict["agentConfig"] = agent_config
        if tool_config is not UNSET:
            field_dict["toolConfig"] = tool_config
        if svc_db_config is not UNSET:
            field_dict["svcDbConfig"] = svc_db_config
        if event_name is not UNSET:
            field_dict["eventName"] = event_name
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_config import AgentConfig # noqa: PLC0415
        from ..models.cron_spec import CronSpec # noqa: PLC0415
        from ..models.dead_letter_config import DeadLetterConfig # noqa: PLC0415
        from ..models.every_spec import EverySpec # noqa: PLC0415
        from ..models.flexible_time_window import FlexibleTimeWindow # noqa: PLC0415
        from ..models.once_spec import OnceSpec # noqa: PLC0415
        from ..models.retry_policy import RetryPolicy # noqa: PLC0415
        from ..models.svc_db_config import SvcDbConfig # noqa: PLC0415
        from ..models.tool_config import ToolConfig # noqa: PLC0415
        d = dict(src_dict)
        action_type = ActionType(d.pop("actionType"))




        def _parse_catchup_window_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        catchup_window_seconds = _parse_catchup_window_seconds(d.pop("catchupWindowSeconds", UNSET))


        def _parse_overlap_policy(data: object) -> None | OverlapPolicy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                overlap_policy_type_0 = OverlapPolicy(data)



                return overlap_policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OverlapPolicy | Unset, data)

        overlap_policy = _parse_overlap_policy(d.pop("overlapPolicy", UNSET))


        def _parse_flexible_time_window(data: object) -> FlexibleTimeWindow | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                flexible_time_window_type_0 = FlexibleTimeWindow.from_dict(data)



                return flexible_time_window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FlexibleTimeWindow | None | Unset, data)

        flexible_time_window = _parse_flexible_time_window(d.pop("flexibleTimeWindow", UNSET))


        def _parse_retry_policy(data: object) -> None | RetryPolicy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                retry_policy_type_0 = RetryPolicy.from_dict(data)



                return retry_policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RetryPolicy | Unset, data)

        retry_policy = _parse_retry_policy(d.pop("retryPolicy", UNSET))


        def _parse_dead_letter_config(data: object) -> DeadLetterConfig | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dead_letter_config_type_0 = DeadLetterConfig.from_dict(data)



                return dead_letter_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeadLetterConfig | None | Unset, data)

        dead_letter_config = _parse_dead_letter_config(d.pop("deadLetterConfig", UNSET))


        def _parse_start_date(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                start_date_type_0 = datetime.datetime.fromisoformat(data)



                return start_date_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        start_date = _parse_start_date(d.pop("startDate", UNSET))


        def _parse_end_date(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                end_date_type_0 = datetime.datetime.fromisoformat(data)



                return end_date_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        end_date = _parse_end_date(d.pop("endDate", UNSET))


        def _parse_action_after_completion(data: object) -> ActionAfterCompletion | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                action_after_completion_type_0 = ActionAfterCompletion(data)



                return action_after_completion_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionAfterCompletion | None | Unset, data)

        action_after_completion = _parse_action_after_completion(d.pop("actionAfterCompletion", UNSET))


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


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


        def _parse_agent_config(data: object) -> AgentConfig | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                agent_config_type_0 = AgentConfig.from_dict(data)



                return agent_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AgentConfig | None | Unset, data)

        agent_config = _parse_agent_config(d.pop("agentConfig", UNSET))


        def _parse_tool_config(data: object) -> None | ToolConfig | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_config_type_0 = ToolConfig.from_dict(data)



                return tool_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolConfig | Unset, data)

        tool_config = _parse_tool_config(d.pop("toolConfig", UNSET))


        def _parse_svc_db_config(data: object) -> None | SvcDbConfig | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                svc_db_config_type_0 = SvcDbConfig.from_dict(data)



                return svc_db_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SvcDbConfig | Unset, data)

        svc_db_config = _parse_svc_db_config(d.pop("svcDbConfig", UNSET))


        def _parse_event_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_name = _parse_event_name(d.pop("eventName", UNSET))


        enabled = d.pop("enabled", UNSET)

        create_event_request = cls(
            action_type=action_type,
            catchup_window_seconds=catchup_window_seconds,
            overlap_policy=overlap_policy,
            flexible_time_window=flexible_time_window,
            retry_policy=retry_policy,
            dead_letter_config=dead_letter_config,
            start_date=start_date,
            end_date=end_date,
            action_after_completion=action_after_completion,
            description=description,
            schedule_spec=schedule_spec,
            cron_expression=cron_expression,
            timezone=timezone,
            agent_config=agent_config,
            tool_config=tool_config,
            svc_db_config=svc_db_config,
            event_name=event_name,
            enabled=enabled,
        )

        return create_event_request

