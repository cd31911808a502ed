"""The one webhook pipeline (ingress/webhooks/pipeline.py) the trigger and a replay run, and the stored
configuration it reads (schemas/webhooks.StoredWebhookConfig): what both paths make of the same request, sizes
measured in bytes on both, and the execution defaults the worker applies."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ingress.webhooks.pipeline import (
    INLINE_TRANSFORM_BYTES,
    Incoming,
    Processed,
    Refused,
    Run,
    delivery_of,
    process,
    transforms_inline,
)
from ingress.webhooks.trigger_screening import INLINE_BYTES, NO_SCREENS, Screens
from schemas.deliveries import HandlerOutcome
from schemas.filters import FilterConfig
from schemas.settings import Settings
from schemas.webhooks import MAX_BODY_BYTES, StoredWebhookConfig, WebhookConfig
from sinks.db.webhooks.deliveries import TriggerTarget
from streams.webhooks.delivery_handlers import handler_timeout, retry_at

pytestmark = pytest.mark.unit

MAPPINGS = {"kind": "$.type", "first": "$.items[0]"}


def _target(config: dict[str, Any]) -> TriggerTarget:
    return TriggerTarget("w1", "c1", "hook", True, config, "k1", "digest", True)


def _live(body: str, headers: dict[str, str], query: dict[str, str]) -> Incoming:
    """A request as the trigger reads one: the raw bytes it received."""
    raw = body.encode("utf-8")
    return Incoming(raw, body, headers, query, lambda: (list(headers.items()), list(query.items())))


def _both(run: Run, body: str, query: dict[str, str]) -> tuple[Refused | Processed, Refused | Processed]:
    headers = {"content-type": "application/json"}
    live = asyncio.run(process(run, _live(body, headers, query)))
    stored = asyncio.run(process(run, Incoming.stored(body, headers, query)))
    return live, stored


def _jsonpath_target(**extra: Any) -> TriggerTarget:
    return _target(
        {
            "name": "hook",
            "payloadTransformConfig": {"transformType": "JSONPATH", "jsonPathMappings": MAPPINGS},
        }
        | extra
    )


@pytest.mark.parametrize("padding", [0, INLINE_TRANSFORM_BYTES], ids=["inline", "on a thread"])
def test_trigger_and_replay_transform_a_request_alike(padding: int) -> None:
    run = Run(_jsonpath_target(), NO_SCREENS, "c1", jsonpath_cpu_ms=100)
    body = json.dumps({"type": "order", "items": [7, 8], "pad": "x" * padding})
    live, stored = _both(run, body, {"tag": "blue"})
    assert isinstance(live, Processed)
    assert live.variables == {"kind": "order", "first": "7"}
    assert live.transform_error is None and live.filter.passed and live.transform_ns is not None
    assert isinstance(stored, Processed)
    assert (stored.variables, stored.transform_type) == (live.variables, "JSONPATH")


def test_a_request_the_filter_drops_is_not_transformed_on_either_path() -> None:
    target = _jsonpath_target(filterConfig={"body": {"type": "refund"}})
    screens = Screens(None, FilterConfig.model_validate({"body": {"type": "refund"}}))
    run = Run(target, screens, "c1", jsonpath_cpu_ms=100)
    for outcome in _both(run, json.dumps({"type": "order"}), {}):
        assert isinstance(outcome, Processed)
        assert not outcome.filter.passed
        assert outcome.variables is None and outcome.transform_ns is None
    for outcome in _both(run, json.dumps({"type": "refund"}), {}):
        assert isinstance(outcome, Processed) and outcome.filter.passed
        assert outcome.variables is not None and outcome.variables["kind"] == "refund"


def test_sizes_are_bytes_on_both_paths() -> None:
    """The interface limits a body in bytes: a body of few characters but many bytes is a large body for
    the trigger and a replay alike."""
    wide = "é" * (INLINE_TRANSFORM_BYTES // 2 + 1)  # fewer characters than the limit, more bytes
    narrow = "e" * INLINE_TRANSFORM_BYTES
    assert len(wide) < INLINE_TRANSFORM_BYTES < len(wide.encode("utf-8"))
    for incoming in (_live(wide, {}, {}), Incoming.stored(wide, {}, {})):
        assert len(incoming.raw) > INLINE_BYTES
        assert not transforms_inline(incoming)
    for incoming in (_live(narrow, {}, {}), Incoming.stored(narrow, {}, {})):
        assert transforms_inline(incoming)


def test_the_body_limit_is_the_interfaces_and_the_request_limit_leaves_room_for_it() -> None:
    assert MAX_BODY_BYTES == 10_485_760
    assert Settings().max_request_bytes > MAX_BODY_BYTES


def test_the_entry_names_the_handler_and_what_the_pipeline_made() -> None:
    target = _target(
        {
            "name": "hook",
            "resourceExecutionConfig": {
                "resourceType": "SVCDB",
                "svcDbConfig": {"operation": "INSERT", "targetTableId": "t9", "values": {}},
            },
        }
    )
    processed = Processed("JSONPATH", variables={"a": "1"})
    moment = datetime(2026, 1, 2, tzinfo=UTC)
    delivery = delivery_of(
        target,
        processed,
        execution_id="e1",
        http_method="POST",
        source_ip=None,
        headers_json="{}",
        query_json="{}",
        payload="{}",
        received_at=moment,
    )
    assert (delivery.resource_type, delivery.resource_id) == ("SVCDB", "t9")
    assert delivery.variables_json == '{"a": "1"}'
    assert not delivery.filtered and delivery.transform_error is None


def test_a_stored_configuration_is_read_as_validation_wrote_it() -> None:
    """What /create stores (the validated model dumped by alias) reads back with every part the pipeline
    uses; keys the reading model does not know are passed over."""
    written = WebhookConfig.model_validate(
        {
            "name": "hook",
            "validationConfig": {"enableValidation": True, "validationScript": "return true"},
            "payloadTransformConfig": {"jsonPathMappings": MAPPINGS},
            "executionSettings": {"timeoutSeconds": 60, "maxRetries": 5, "retryDelaySeconds": 10},
            "secretHeaders": ["X-Token"],
            "deduplication": {"windowSeconds": 600},
        }
    ).model_dump(mode="json", by_alias=True, exclude_none=True)
    stored = StoredWebhookConfig.model_validate(written)
    assert stored.validation_script() == "return true"
    assert stored.payload_transform_config.json_path_mappings == MAPPINGS
    assert stored.execution_settings.max_retries == 5
    assert stored.secret_headers == ["X-Token"]
    assert StoredWebhookConfig.model_validate({"name": "hook", "later": 1}).name == "hook"


def test_a_configuration_without_execution_settings_runs_with_the_documented_defaults() -> None:
    config = StoredWebhookConfig.model_validate({"name": "hook"})
    ended = datetime(2026, 1, 2, tzinfo=UTC)
    failed = HandlerOutcome(ok=False, error="boom", retryable=True)
    assert handler_timeout(config) == 300.0
    assert retry_at(config, 1, ended, failed) == ended + timedelta(seconds=5)
    assert retry_at(config, 3, ended, failed) is not None
    assert retry_at(config, 4, ended, failed) is None  # three retries after the first attempt
    assert retry_at(config, 1, ended, HandlerOutcome(ok=True)) is None
