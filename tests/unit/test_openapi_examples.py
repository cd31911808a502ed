"""Issue 22: the OpenAPI document shows a client author a realistic body for each operation, and every body
it shows is one the service accepts.

The examples live in ``schemas/examples/`` and reach the document through the request models'
``model_config``. Each one is validated here against the model the operation takes, and then, where the route
checks more than the model does, against those checks too (schedules, JSONPath mappings, column types and
partitions, row filters, SQL, appended rows, cursors, reveal pairs), so an example can never drift from the
service.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from core.row_filter import check_row_filter
from core.schedules.spec import parse_schedule_expression, validate_spec
from core.sql.front import QueryColumn, QueryTable, compile_query, parse_query
from core.webhooks.transform import compile_jsonpath_mappings
from ingress.analytics.append_rows import convert
from ingress.analytics.job_results_view import check_reveal_pair
from ingress.analytics.jobs import _cursor
from ingress.analytics.table_specs import table_definition
from schemas import alerts, identity
from schemas.column_types import SYSTEM_COLUMNS, ColumnDef, parse_column_type
from schemas.delivery_stats import DeliveryStatsRequest
from schemas.examples import ids
from schemas.intake import AbortRequest, CompleteRequest, InitiateRequest, PartUrlsRequest
from schemas.jobs import (
    DownloadRequest,
    EstimateRequest,
    JobRequest,
    JobResultsRequest,
    JobsRequest,
    JobStatusRequest,
    LoadRequest,
    QueryRequest,
)
from schemas.maintenance import MaintainRequest
from schemas.replay import ReplayRequest
from schemas.retention import RetentionUpdate
from schemas.scheduled import actions, controls
from schemas.scheduled import events as scheduled_events
from schemas.scheduled import preview as scheduled_preview
from schemas.scheduled.backfill import BackfillRequest
from schemas.scheduled.schedules import load_schedule_spec
from schemas.settings import Settings
from schemas.tables import (
    AddColumnRequest,
    AppendRowsRequest,
    CreateTableRequest,
    DescribeRequest,
    GrantTableRequest,
    PreviewRequest,
    SnapshotsRequest,
    TableIdRequest,
    UpdateSemanticsRequest,
)
from schemas.transform_trial import TransformTrialRequest
from schemas.webhooks import (
    CreateWebhookRequest,
    HistoryRequest,
    ShareRequest,
    UpdateWebhookRequest,
    WebhookConfig,
    WebhookIdRequest,
)
from svc.cli import openapi_document

pytestmark = pytest.mark.unit

WEBHOOKS = "/svc_poweruser/custom-webhooks"
EVENTS = "/clients/scheduled-events"
TABLES = "/svc_poweruser/analytics/tables"
ANALYTICS = "/clients/svcdb/analytics"
INTAKE = "/clients/svcdb-intake"
ALERTS = "/svc_poweruser/alerts"
ALERT_RULES = f"{ALERTS}/rules"

# The operations issue 22 names, each with the model its body is validated as.
MAIN_OPERATIONS: dict[str, type[BaseModel]] = {
    f"{WEBHOOKS}/create": CreateWebhookRequest,
    f"{WEBHOOKS}/update": UpdateWebhookRequest,
    f"{WEBHOOKS}/share": ShareRequest,
    f"{WEBHOOKS}/get-execution-history": HistoryRequest,
    f"{EVENTS}/create": scheduled_events.CreateEventRequest,
    f"{EVENTS}/update": scheduled_events.UpdateEventRequest,
    f"{EVENTS}/toggle": scheduled_events.ToggleRequest,
    f"{TABLES}/create": CreateTableRequest,
    f"{TABLES}/grant": GrantTableRequest,
    f"{ANALYTICS}/describe": DescribeRequest,
    f"{ANALYTICS}/preview": PreviewRequest,
    f"{ANALYTICS}/estimate": EstimateRequest,
    f"{ANALYTICS}/query": QueryRequest,
    f"{ANALYTICS}/job-status": JobStatusRequest,
    f"{ANALYTICS}/job-results": JobResultsRequest,
    f"{ANALYTICS}/jobs": JobsRequest,
    f"{ANALYTICS}/job-download-url": DownloadRequest,
    f"{ANALYTICS}/load-from-s3": LoadRequest,
    f"{ANALYTICS}/append-rows": AppendRowsRequest,
    f"{INTAKE}/multipart-initiate": InitiateRequest,
    f"{INTAKE}/multipart-part-urls": PartUrlsRequest,
    f"{INTAKE}/multipart-complete": CompleteRequest,
}
# The other operations with a JSON body have examples too.
OTHER_OPERATIONS: dict[str, type[BaseModel]] = {
    "/clients/whoami": identity.EmptyRequest,
    "/svc_poweruser/whoami": identity.EmptyRequest,
    "/svc_poweruser/retention/get": identity.EmptyRequest,
    "/svc_poweruser/retention/update": RetentionUpdate,
    "/svc_poweruser/destinations/get-all": identity.EmptyRequest,
    f"{WEBHOOKS}/get-delivery-stats": DeliveryStatsRequest,
    f"{WEBHOOKS}/get": WebhookIdRequest,
    f"{WEBHOOKS}/get-shares": WebhookIdRequest,
    f"{WEBHOOKS}/delete": WebhookIdRequest,
    f"{WEBHOOKS}/refresh-api-key": WebhookIdRequest,
    f"{WEBHOOKS}/replay": ReplayRequest,
    f"{WEBHOOKS}/test-transform": TransformTrialRequest,
    f"{EVENTS}/all": scheduled_events.EmptyRequest,
    f"{EVENTS}/get": scheduled_events.EventIdRequest,
    f"{EVENTS}/delete": scheduled_events.EventIdRequest,
    f"{EVENTS}/runs": scheduled_events.RunsRequest,
    f"{EVENTS}/preview": scheduled_preview.SchedulePreviewRequest,
    f"{EVENTS}/pause": controls.PauseRequest,
    f"{EVENTS}/run-now": controls.RunNowRequest,
    f"{EVENTS}/backfill": BackfillRequest,
    f"{TABLES}/add-column": AddColumnRequest,
    f"{TABLES}/update-semantics": UpdateSemanticsRequest,
    f"{TABLES}/drop": TableIdRequest,
    f"{TABLES}/snapshots": SnapshotsRequest,
    f"{TABLES}/get-all": identity.EmptyRequest,
    f"{TABLES}/maintain": MaintainRequest,
    f"{ANALYTICS}/cancel": JobRequest,
    f"{INTAKE}/multipart-abort": AbortRequest,
    f"{ALERT_RULES}/create": alerts.CreateRuleRequest,
    f"{ALERT_RULES}/get-all": identity.EmptyRequest,
    f"{ALERT_RULES}/update": alerts.UpdateRuleRequest,
    f"{ALERT_RULES}/delete": alerts.RuleIdRequest,
    f"{ALERTS}/get-all": alerts.AlertsRequest,
    f"{ALERTS}/get": alerts.AlertIdRequest,
    f"{ALERTS}/acknowledge": alerts.AlertIdRequest,
    f"{ALERTS}/resolve": alerts.AlertIdRequest,
    f"{ALERTS}/replay": alerts.AlertReplayRequest,
}
OPERATIONS = {**MAIN_OPERATIONS, **OTHER_OPERATIONS}
ID = re.compile(r"^[0-9a-f]{32}$")
M = TypeVar("M", bound=BaseModel)
# Every field of a request body that holds an id the service issued (not the free-form maps, whose keys are
# the caller's own names).
ID_FIELDS = frozenset(
    {
        "agentId",
        "alertId",
        "executionId",
        "jobId",
        "notify",
        "ruleId",
        "resourceId",
        "scheduledEventId",
        "tableId",
        "tableIds",
        "targetTableId",
        "toolId",
        "uploadId",
        "userId",
        "webhookId",
    }
)


@cache
def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(openapi_document())
    return document


def _body_schema(path: str) -> dict[str, Any]:
    """The JSON request body schema of the POST at ``path``, its reference (and an optional body's null
    alternative) resolved."""
    document = _document()
    schema: dict[str, Any] = document["paths"][path]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    schema = next((choice for choice in schema.get("anyOf", []) if choice.get("type") != "null"), schema)
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        resolved: dict[str, Any] = document["components"]["schemas"][name]
        return resolved
    return schema


def _examples(path: str) -> list[dict[str, Any]]:
    examples: list[dict[str, Any]] = _body_schema(path).get("examples", [])
    return examples


def _bodies(path: str, model: type[M]) -> list[M]:
    """The examples of ``path`` as validated ``model`` instances."""
    assert OPERATIONS[path] is model
    return [model.model_validate(example) for example in _examples(path)]


@pytest.mark.parametrize("path", sorted(MAIN_OPERATIONS))
def test_each_main_operation_shows_an_example_body(path: str) -> None:
    assert _examples(path), f"{path}: its request body schema carries no example"


@pytest.mark.parametrize("path", sorted(OPERATIONS))
def test_every_example_is_valid_for_the_operations_model(path: str) -> None:
    model = OPERATIONS[path]
    schema = _body_schema(path)
    # The document's body schema is this model's (names may carry a module prefix when two models share one).
    assert schema["title"] == model.__name__
    assert set(schema.get("properties", {})) == set(model.model_json_schema().get("properties", {}))
    assert _examples(path), f"{path}: no example"
    for example in _examples(path):
        model.model_validate(example)
    # The document shows the examples as written (FastAPI would silently drop a null from one).
    extra = model.model_config.get("json_schema_extra")
    assert isinstance(extra, dict)
    assert _examples(path) == extra["examples"]


def test_every_example_the_document_shows_is_checked_here() -> None:
    """A new operation (or a new model inheriting an example) cannot show examples nobody validates."""
    with_examples = {
        path
        for path, item in _document()["paths"].items()
        for method, operation in item.items()
        if "application/json" in operation.get("requestBody", {}).get("content", {})
        and (method != "post" or _examples(path))
    }
    assert with_examples <= set(OPERATIONS)
    shown = {name for name, schema in _document()["components"]["schemas"].items() if "examples" in schema}
    checked = {ref for path in OPERATIONS if (ref := _component_name(path)) is not None}
    assert shown <= checked


def _component_name(path: str) -> str | None:
    schema = _document()["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    refs = [choice["$ref"] for choice in [schema, *schema.get("anyOf", [])] if "$ref" in choice]
    return refs[0].removeprefix("#/components/schemas/") if refs else None


def _id_values(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _id_values(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _id_values(item, key)
    elif key in ID_FIELDS:
        yield key, value


@pytest.mark.parametrize("path", sorted(OPERATIONS))
def test_ids_are_ids_the_service_issues(path: str) -> None:
    found = [pair for example in _examples(path) for pair in _id_values(example)]
    for key, value in found:
        assert isinstance(value, str) and ID.match(value), f"{path}: {key} {value!r} is not 32 lower-case hex"
    without_ids = {
        "/clients/whoami",
        "/svc_poweruser/whoami",
        "/svc_poweruser/retention/get",
        "/svc_poweruser/retention/update",
        "/svc_poweruser/destinations/get-all",
        f"{ALERT_RULES}/get-all",
        f"{EVENTS}/all",
        f"{TABLES}/create",
        f"{TABLES}/get-all",
        f"{INTAKE}/multipart-initiate",
    }
    assert found or path in without_ids


# What the routes check beyond the models.


def test_webhook_configs_are_valid_configs_with_compiling_mappings() -> None:
    configs = [body.webhook_config for body in _bodies(f"{WEBHOOKS}/create", CreateWebhookRequest)]
    configs += [body.webhook_config for body in _bodies(f"{WEBHOOKS}/update", UpdateWebhookRequest)]
    tried = _bodies(f"{WEBHOOKS}/test-transform", TransformTrialRequest)
    configs += [body.webhook_config for body in tried if body.webhook_config is not None]
    types = set()
    for raw in configs:
        config = WebhookConfig.model_validate(raw)
        compile_jsonpath_mappings(config.payload_transform_config.json_path_mappings or {})
        execution = config.resource_execution_config
        if execution is not None:
            types.add(execution.resource_type.value)
            target = execution.svc_db_config.target_table_id if execution.svc_db_config else None
            assert execution.resource_id in (None, ids.TOOL_ID, ids.AGENT_ID)
            assert target in (None, ids.ORDERS_TABLE_ID)
            if execution.svc_db_config is not None:
                assert set(execution.svc_db_config.values) <= _column_names(ids.ORDERS_TABLE_ID)
    assert types == {"TOOL", "AGENT", "SVCDB"}


def test_schedules_are_accepted_as_the_routes_accept_them() -> None:
    now = datetime.now(UTC)
    forms: set[str] = set()
    for path in (f"{EVENTS}/create", f"{EVENTS}/update"):
        for example in _examples(path):
            if "scheduleSpec" in example:
                spec = load_schedule_spec(example["scheduleSpec"])
                forms.add(spec.pattern)
            elif "cronExpression" in example:
                spec = parse_schedule_expression(example["cronExpression"], example.get("timezone"))
                forms.add("cronExpression")
            else:
                continue
            validate_spec(spec, now)
    assert forms == {"EVERY", "CRON", "cronExpression"}


def test_scheduled_targets_are_the_stories_tool_agent_and_table() -> None:
    for body in _bodies(f"{EVENTS}/create", scheduled_events.CreateEventRequest):
        config = body.config()
        target = actions.target_id(body.action_type, config)
        assert target in (ids.TOOL_ID, ids.AGENT_ID, ids.CUSTOMERS_TABLE_ID)
        if isinstance(config, actions.SvcDbConfig):
            named = set(config.values) | {
                condition.column_name for group in config.where_groups or [] for condition in group.conditions
            }
            assert named <= _column_names(ids.CUSTOMERS_TABLE_ID)


@cache
def _tables() -> dict[str, tuple[CreateTableRequest, list[ColumnDef]]]:
    """The tables the create examples define, by the id the rest of the examples give them."""
    created = _bodies(f"{TABLES}/create", CreateTableRequest)
    table_ids = {"orders": ids.ORDERS_TABLE_ID, "customers": ids.CUSTOMERS_TABLE_ID}
    assert sorted(body.sql_name for body in created) == sorted(table_ids)
    return {table_ids[body.sql_name]: (body, table_definition(body)[0]) for body in created}


def _column_names(table_id: str) -> set[str]:
    return {column.name for column in _tables()[table_id][1]}


def test_created_tables_pass_the_column_and_partition_checks() -> None:
    for created, definitions in _tables().values():  # table_definition checked types and partitions
        assert [d.name for d in definitions] == [c.name for c in created.columns]
    for added in _bodies(f"{TABLES}/add-column", AddColumnRequest):
        # A new column is nullable; one the table has is a widening of it.
        assert added.column.nullable or added.column.name in _column_names(added.table_id)
        parse_column_type(added.column.type)


def test_grants_name_real_columns_and_a_row_filter_the_allow_list_accepts() -> None:
    for body in _bodies(f"{TABLES}/grant", GrantTableRequest):
        columns = _column_names(body.table_id)
        assert set(body.hidden_columns) <= columns
        if body.row_filter is not None:
            check_row_filter(body.row_filter, columns)


def _query_tables() -> dict[str, QueryTable]:
    system = [
        QueryColumn(name, parse_column_type("LONG" if name == "_record_id" else "STRING"))
        for name in SYSTEM_COLUMNS
    ]
    return {
        body.sql_name: QueryTable(
            body.sql_name,
            tuple(QueryColumn(d.name, d.type, d.masked) for d in definitions) + tuple(system),
        )
        for body, definitions in _tables().values()
    }


def test_sql_examples_compile_against_the_example_tables() -> None:
    statements = [body.sql for body in _bodies(f"{ANALYTICS}/estimate", EstimateRequest)]
    statements += [body.sql for body in _bodies(f"{ANALYTICS}/query", QueryRequest)]
    statements += [query.sql for body, _ in _tables().values() for query in body.verified_queries]
    assert len(statements) >= 4
    for sql in statements:
        compile_query(parse_query(sql), _query_tables())


def test_appended_rows_all_convert_to_the_orders_table() -> None:
    for body in _bodies(f"{ANALYTICS}/append-rows", AppendRowsRequest):
        converted = convert(
            _tables()[body.table_id][1], body.rows, ids.QUERY_JOB_ID, encrypt=lambda text: text
        )
        assert converted.errors == []
        assert converted.accepted == len(body.rows)


def test_result_reveals_and_job_cursors_pass_the_routes_checks() -> None:
    masked = {d.name for d in _tables()[ids.ORDERS_TABLE_ID][1] if d.masked}
    for body in _bodies(f"{ANALYTICS}/job-results", JobResultsRequest):
        check_reveal_pair(body.reveal_row, body.reveal_column)
        assert body.reveal_column in (None, *masked)
    cursors = [body.cursor for body in _bodies(f"{ANALYTICS}/jobs", JobsRequest)]
    assert [c for c in cursors if c is not None], "one example pages on with a nextCursor"
    for cursor in cursors:
        _cursor(cursor)


def test_the_upload_story_ends_in_the_load() -> None:
    """The upload's key is the one the service gives the initiated file, and the load reads its s3Uri."""
    (initiated,) = _bodies(f"{INTAKE}/multipart-initiate", InitiateRequest)
    key = f"uploads/{ids.COMPANY_ID}/{ids.UPLOAD_ID}/{initiated.file_name}"
    uploads = [
        *_bodies(f"{INTAKE}/multipart-part-urls", PartUrlsRequest),
        *_bodies(f"{INTAKE}/multipart-complete", CompleteRequest),
        *_bodies(f"{INTAKE}/multipart-abort", AbortRequest),
    ]
    assert {(body.upload_id, body.s3_key) for body in uploads} == {(ids.UPLOAD_ID, key)}
    uri = f"s3://{Settings.model_construct().object_store_bucket}/{key}"
    loads = _bodies(f"{ANALYTICS}/load-from-s3", LoadRequest)
    assert {source for body in loads for source in body.source_uris} == {uri}
    assert any(body.csv.delimiter != "," for body in loads), "one example shows CSV options"
    for body in loads:
        assert set((body.column_mapping or {}).values()) <= _column_names(body.table_id)
