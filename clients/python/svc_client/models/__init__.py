""" Contains all the data models used in inputs/outputs """

from .abort_answer import AbortAnswer
from .abort_request import AbortRequest
from .access_level import AccessLevel
from .action_after_completion import ActionAfterCompletion
from .action_type import ActionType
from .add_column_request import AddColumnRequest
from .agent_config import AgentConfig
from .agent_execution_request import AgentExecutionRequest
from .agent_execution_request_environment_variables_type_0 import AgentExecutionRequestEnvironmentVariablesType0
from .alert import Alert
from .alert_answer import AlertAnswer
from .alert_id_request import AlertIdRequest
from .alert_item import AlertItem
from .alert_replay_request import AlertReplayRequest
from .alert_state import AlertState
from .alerts_answer import AlertsAnswer
from .alerts_request import AlertsRequest
from .api_key_answer import ApiKeyAnswer
from .append_rows_answer import AppendRowsAnswer
from .append_rows_clients_svcdb_analytics_append_rows_post_append_rows_request import AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest
from .backfill_answer import BackfillAnswer
from .backfill_request import BackfillRequest
from .circuit_open import CircuitOpen
from .column_spec import ColumnSpec
from .column_spec_maskstrategy import ColumnSpecMaskstrategy
from .complete_answer import CompleteAnswer
from .complete_request import CompleteRequest
from .complete_request_partetags import CompleteRequestPartetags
from .condition_operator import ConditionOperator
from .condition_type import ConditionType
from .create_event_request import CreateEventRequest
from .create_rule_request import CreateRuleRequest
from .create_table_request import CreateTableRequest
from .create_webhook_request import CreateWebhookRequest
from .create_webhook_request_webhookconfig import CreateWebhookRequestWebhookconfig
from .created_answer import CreatedAnswer
from .created_table import CreatedTable
from .created_webhook_answer import CreatedWebhookAnswer
from .cron_config import CronConfig
from .cron_spec import CronSpec
from .csv_options import CsvOptions
from .dead_letter_config import DeadLetterConfig
from .deleted_answer import DeletedAnswer
from .deleted_rule_answer import DeletedRuleAnswer
from .delivery_stats_answer import DeliveryStatsAnswer
from .delivery_stats_request import DeliveryStatsRequest
from .describe_clients_svcdb_analytics_describe_post_response_describe_clients_svcdb_analytics_describe_post import DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost
from .describe_request import DescribeRequest
from .destination_answer import DestinationAnswer
from .destination_answer_state import DestinationAnswerState
from .destinations_answer import DestinationsAnswer
from .direct_share_entry import DirectShareEntry
from .download_request import DownloadRequest
from .download_request_format import DownloadRequestFormat
from .duplicate_webhook_response import DuplicateWebhookResponse
from .empty_request import EmptyRequest
from .estimate_request import EstimateRequest
from .event_answer import EventAnswer
from .event_id_request import EventIdRequest
from .every_config import EveryConfig
from .every_config_unit import EveryConfigUnit
from .every_spec import EverySpec
from .execute_webhook_response import ExecuteWebhookResponse
from .execution_details import ExecutionDetails
from .execution_entry import ExecutionEntry
from .execution_status import ExecutionStatus
from .filtered_webhook_response import FilteredWebhookResponse
from .flex_mode import FlexMode
from .flexible_time_window import FlexibleTimeWindow
from .grant_table_request import GrantTableRequest
from .grant_table_request_level import GrantTableRequestLevel
from .healthz_healthz_get_response_healthz_healthz_get import HealthzHealthzGetResponseHealthzHealthzGet
from .history_answer import HistoryAnswer
from .history_request import HistoryRequest
from .http_validation_error import HTTPValidationError
from .initiate_answer import InitiateAnswer
from .initiate_request import InitiateRequest
from .input_item import InputItem
from .item_kind import ItemKind
from .job_kind import JobKind
from .job_request import JobRequest
from .job_results_request import JobResultsRequest
from .job_state import JobState
from .job_status_request import JobStatusRequest
from .jobs_request import JobsRequest
from .join import Join
from .join_relationship import JoinRelationship
from .list_answer import ListAnswer
from .listed_column import ListedColumn
from .listed_column_mask_strategy_type_0 import ListedColumnMaskStrategyType0
from .listed_table import ListedTable
from .listed_table_level import ListedTableLevel
from .load_request import LoadRequest
from .load_request_column_mapping_type_0 import LoadRequestColumnMappingType0
from .load_request_format_type_0 import LoadRequestFormatType0
from .load_request_mode import LoadRequestMode
from .maintain_request import MaintainRequest
from .maintenance_action import MaintenanceAction
from .maintenance_report import MaintenanceReport
from .measure import Measure
from .once_config import OnceConfig
from .once_spec import OnceSpec
from .overlap_policy import OverlapPolicy
from .part_urls_answer import PartUrlsAnswer
from .part_urls_answer_parturls import PartUrlsAnswerParturls
from .part_urls_request import PartUrlsRequest
from .partition_field import PartitionField
from .pause_answer import PauseAnswer
from .pause_request import PauseRequest
from .preview_clients_svcdb_analytics_preview_post_response_preview_clients_svcdb_analytics_preview_post import PreviewClientsSvcdbAnalyticsPreviewPostResponsePreviewClientsSvcdbAnalyticsPreviewPost
from .preview_request import PreviewRequest
from .query_request import QueryRequest
from .replay_answer import ReplayAnswer
from .replay_filter import ReplayFilter
from .replay_request import ReplayRequest
from .replayed_execution import ReplayedExecution
from .resolved_by import ResolvedBy
from .retention_answer import RetentionAnswer
from .retention_update import RetentionUpdate
from .retry_policy import RetryPolicy
from .row_error import RowError
from .rule import Rule
from .rule_answer import RuleAnswer
from .rule_id_request import RuleIdRequest
from .rules_answer import RulesAnswer
from .run_attempt import RunAttempt
from .run_entry import RunEntry
from .run_now_answer import RunNowAnswer
from .run_now_request import RunNowRequest
from .run_status import RunStatus
from .run_trigger import RunTrigger
from .runs_answer import RunsAnswer
from .runs_request import RunsRequest
from .schedule_preview_answer import SchedulePreviewAnswer
from .schedule_preview_request import SchedulePreviewRequest
from .scheduled_event import ScheduledEvent
from .scheduled_event_agent_config_type_0 import ScheduledEventAgentConfigType0
from .scheduled_event_schedulespec import ScheduledEventSchedulespec
from .scheduled_event_svc_db_config_type_0 import ScheduledEventSvcDbConfigType0
from .scheduled_event_tool_config_type_0 import ScheduledEventToolConfigType0
from .scheduled_run_failed import ScheduledRunFailed
from .share_request import ShareRequest
from .share_user import ShareUser
from .shared_answer import SharedAnswer
from .shares_answer import SharesAnswer
from .sharing_level import SharingLevel
from .snapshots_answer import SnapshotsAnswer
from .snapshots_request import SnapshotsRequest
from .stats_bucket import StatsBucket
from .stats_bucket_counts import StatsBucketCounts
from .stats_window import StatsWindow
from .subject import Subject
from .subject_kind import SubjectKind
from .svc_db_config import SvcDbConfig
from .svc_db_config_groups_logical_operator_type_0 import SvcDbConfigGroupsLogicalOperatorType0
from .svc_db_config_operation import SvcDbConfigOperation
from .svc_db_config_values import SvcDbConfigValues
from .table_failure import TableFailure
from .table_id_request import TableIdRequest
from .table_snapshot import TableSnapshot
from .tables_answer import TablesAnswer
from .toggle_request import ToggleRequest
from .toggled_answer import ToggledAnswer
from .tool_config import ToolConfig
from .tool_execution_request import ToolExecutionRequest
from .tool_execution_request_environment_variables_type_0 import ToolExecutionRequestEnvironmentVariablesType0
from .tool_execution_request_variables_type_0 import ToolExecutionRequestVariablesType0
from .transform_trial_answer import TransformTrialAnswer
from .transform_trial_answer_variables_type_0 import TransformTrialAnswerVariablesType0
from .transform_trial_request import TransformTrialRequest
from .transform_trial_request_headers import TransformTrialRequestHeaders
from .transform_trial_request_queryparams import TransformTrialRequestQueryparams
from .transform_trial_request_webhook_config_type_0 import TransformTrialRequestWebhookConfigType0
from .typed_value import TypedValue
from .update_event_request import UpdateEventRequest
from .update_rule_request import UpdateRuleRequest
from .update_semantics_request import UpdateSemanticsRequest
from .update_semantics_request_column_descriptions_type_0 import UpdateSemanticsRequestColumnDescriptionsType0
from .update_semantics_request_column_synonyms_type_0 import UpdateSemanticsRequestColumnSynonymsType0
from .update_webhook_request import UpdateWebhookRequest
from .update_webhook_request_webhookconfig import UpdateWebhookRequestWebhookconfig
from .updated import Updated
from .updated_answer import UpdatedAnswer
from .validation_error import ValidationError
from .validation_error_context import ValidationErrorContext
from .verified_query import VerifiedQuery
from .version_selector import VersionSelector
from .version_state import VersionState
from .webhook import Webhook
from .webhook_answer import WebhookAnswer
from .webhook_failures import WebhookFailures
from .webhook_id_request import WebhookIdRequest
from .webhook_list_answer import WebhookListAnswer
from .webhook_webhookconfig import WebhookWebhookconfig
from .where_condition import WhereCondition
from .where_group import WhereGroup
from .where_group_logicaloperator import WhereGroupLogicaloperator
from .who_am_i import WhoAmI

__all__ = (
    "AbortAnswer",
    "AbortRequest",
    "AccessLevel",
    "ActionAfterCompletion",
    "ActionType",
    "AddColumnRequest",
    "AgentConfig",
    "AgentExecutionRequest",
    "AgentExecutionRequestEnvironmentVariablesType0",
    "Alert",
    "AlertAnswer",
    "AlertIdRequest",
    "AlertItem",
    "AlertReplayRequest",
    "AlertsAnswer",
    "AlertsRequest",
    "AlertState",
    "ApiKeyAnswer",
    "AppendRowsAnswer",
    "AppendRowsClientsSvcdbAnalyticsAppendRowsPostAppendRowsRequest",
    "BackfillAnswer",
    "BackfillRequest",
    "CircuitOpen",
    "ColumnSpec",
    "ColumnSpecMaskstrategy",
    "CompleteAnswer",
    "CompleteRequest",
    "CompleteRequestPartetags",
    "ConditionOperator",
    "ConditionType",
    "CreatedAnswer",
    "CreatedTable",
    "CreatedWebhookAnswer",
    "CreateEventRequest",
    "CreateRuleRequest",
    "CreateTableRequest",
    "CreateWebhookRequest",
    "CreateWebhookRequestWebhookconfig",
    "CronConfig",
    "CronSpec",
    "CsvOptions",
    "DeadLetterConfig",
    "DeletedAnswer",
    "DeletedRuleAnswer",
    "DeliveryStatsAnswer",
    "DeliveryStatsRequest",
    "DescribeClientsSvcdbAnalyticsDescribePostResponseDescribeClientsSvcdbAnalyticsDescribePost",
    "DescribeRequest",
    "DestinationAnswer",
    "DestinationAnswerState",
    "DestinationsAnswer",
    "DirectShareEntry",
    "DownloadRequest",
    "DownloadRequestFormat",
    "DuplicateWebhookResponse",
    "EmptyRequest",
    "EstimateRequest",
    "EventAnswer",
    "EventIdRequest",
    "EveryConfig",
    "EveryConfigUnit",
    "EverySpec",
    "ExecuteWebhookResponse",
    "ExecutionDetails",
    "ExecutionEntry",
    "ExecutionStatus",
    "FilteredWebhookResponse",
    "FlexibleTimeWindow",
    "FlexMode",
    "GrantTableRequest",
    "GrantTableRequestLevel",
    "HealthzHealthzGetResponseHealthzHealthzGet",
    "HistoryAnswer",
    "HistoryRequest",
    "HTTPValidationError",
    "InitiateAnswer",
    "InitiateRequest",
    "InputItem",
    "ItemKind",
    "JobKind",
    "JobRequest",
    "JobResultsRequest",
    "JobsRequest",
    "JobState",
    "JobStatusRequest",
    "Join",
    "JoinRelationship",
    "ListAnswer",
    "ListedColumn",
    "ListedColumnMaskStrategyType0",
    "ListedTable",
    "ListedTableLevel",
    "LoadRequest",
    "LoadRequestColumnMappingType0",
    "LoadRequestFormatType0",
    "LoadRequestMode",
    "MaintainRequest",
    "MaintenanceAction",
    "MaintenanceReport",
    "Measure",
    "OnceConfig",
    "OnceSpec",
    "OverlapPolicy",
    "PartitionField",
    "PartUrlsAnswer",
    "PartUrlsAnswerParturls",
    "PartUrlsRequest",
    "PauseAnswer",
    "PauseRequest",
    "PreviewClientsSvcdbAnalyticsPreviewPostResponsePreviewClientsSvcdbAnalyticsPreviewPost",
    "PreviewRequest",
    "QueryRequest",
    "ReplayAnswer",
    "ReplayedExecution",
    "ReplayFilter",
    "ReplayRequest",
    "ResolvedBy",
    "RetentionAnswer",
    "RetentionUpdate",
    "RetryPolicy",
    "RowError",
    "Rule",
    "RuleAnswer",
    "RuleIdRequest",
    "RulesAnswer",
    "RunAttempt",
    "RunEntry",
    "RunNowAnswer",
    "RunNowRequest",
    "RunsAnswer",
    "RunsRequest",
    "RunStatus",
    "RunTrigger",
    "ScheduledEvent",
    "ScheduledEventAgentConfigType0",
    "ScheduledEventSchedulespec",
    "ScheduledEventSvcDbConfigType0",
    "ScheduledEventToolConfigType0",
    "ScheduledRunFailed",
    "SchedulePreviewAnswer",
    "SchedulePreviewRequest",
    "SharedAnswer",
    "ShareRequest",
    "SharesAnswer",
    "ShareUser",
    "SharingLevel",
    "SnapshotsAnswer",
    "SnapshotsRequest",
    "StatsBucket",
    "StatsBucketCounts",
    "StatsWindow",
    "Subject",
    "SubjectKind",
    "SvcDbConfig",
    "SvcDbConfigGroupsLogicalOperatorType0",
    "SvcDbConfigOperation",
    "SvcDbConfigValues",
    "TableFailure",
    "TableIdRequest",
    "TablesAnswer",
    "TableSnapshot",
    "ToggledAnswer",
    "ToggleRequest",
    "ToolConfig",
    "ToolExecutionRequest",
    "ToolExecutionRequestEnvironmentVariablesType0",
    "ToolExecutionRequestVariablesType0",
    "TransformTrialAnswer",
    "TransformTrialAnswerVariablesType0",
    "TransformTrialRequest",
    "TransformTrialRequestHeaders",
    "TransformTrialRequestQueryparams",
    "TransformTrialRequestWebhookConfigType0",
    "TypedValue",
    "Updated",
    "UpdatedAnswer",
    "UpdateEventRequest",
    "UpdateRuleRequest",
    "UpdateSemanticsRequest",
    "UpdateSemanticsRequestColumnDescriptionsType0",
    "UpdateSemanticsRequestColumnSynonymsType0",
    "UpdateWebhookRequest",
    "UpdateWebhookRequestWebhookconfig",
    "ValidationError",
    "ValidationErrorContext",
    "VerifiedQuery",
    "VersionSelector",
    "VersionState",
    "Webhook",
    "WebhookAnswer",
    "WebhookFailures",
    "WebhookIdRequest",
    "WebhookListAnswer",
    "WebhookWebhookconfig",
    "WhereCondition",
    "WhereGroup",
    "WhereGroupLogicaloperator",
    "WhoAmI",
)
