"""The configuration reference, docs/configuration.md, written from the settings model (``make docs``).

Pure: a settings class in, markdown out. A setting marked ``json_schema_extra={"internal": True}`` (set by
`svc up` on its children, or there for crash tests) is left out; every other one needs a description and
an area, and a unit test fails when the committed file differs from what this module writes.
"""

from __future__ import annotations

import sys
import types
from enum import Enum
from pathlib import Path
from typing import Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from schemas.settings import Settings

# The areas in the order of the reference, each with the one-line lead the reference gives it.
AREAS: dict[str, str] = {
    "service": "The processes `svc up` runs, where they listen and keep their state, and how they stop.",
    "database": "The metadata database, the source of truth of every record.",
    "broker": "The Kafka-protocol broker: the embedded one `svc up` starts, or a Kafka cluster.",
    "storage": "The warehouse, the object store, S3, uploads' links and how long records are kept.",
    "webhooks": "Deliveries, their leases and reconcilers, destinations' circuits, replays and alerts.",
    "schedules": "Scheduled events: actions, run-now and retries.",
    "analytics": "Tables (commits, maintenance) and query jobs.",
    "limits": "The plan's limits and quotas per key and per company, and the request size.",
    "sandbox": "The script sandbox: validation and transform scripts, JSONPath, SQL analysis.",
    "observability": "Logs, metrics and traces.",
}

# Which area each user setting belongs to; a setting in none is a failure of the unit test.
_AREA_OF: dict[str, tuple[str, ...]] = {
    "service": (
        "environment", "host", "port", "data_dir", "secret_key", "public_base_url", "ingress_processes",
        "worker_processes", "worker_id", "worker_concurrency", "worker_niceness", "startup_timeout_seconds",
        "shutdown_timeout_seconds", "console", "console_session_seconds",
    ),
    "database": ("database_url", "db_committers"),
    "broker": (
        "kafka_bootstrap", "broker_port", "broker_profile", "kafka_idempotence", "kafka_fetch_max_wait_ms",
        "kafka_session_timeout_seconds", "topic_prefix", "topic_partitions", "delivery_topic_partitions",
        "topic_replication", "embedded_broker_renew_records", "embedded_broker_renew_mib",
        "embedded_broker_renew_min_seconds", "embedded_broker_renew_drain_seconds",
        "embedded_broker_check_seconds",
    ),
    "storage": (
        "storage_min_free_bytes", "warehouse", "object_store", "object_store_bucket", "s3_endpoint",
        "s3_create_buckets",
        "s3_connect_timeout_seconds", "s3_read_timeout_seconds", "s3_max_attempts", "upload_link_seconds",
        "upload_max_part_bytes", "upload_expiry_seconds", "inline_body_bytes", "history_retention_seconds",
        "runs_retention_seconds", "jobs_retention_seconds", "retention_sweep_seconds",
    ),
    "webhooks": (
        "trigger_cache_seconds", "reconcile_interval_seconds", "queued_grace_seconds",
        "processing_grace_seconds", "lease_seconds", "lease_cap_factor", "circuit_failures",
        "circuit_failure_ratio", "circuit_min_attempts", "circuit_window_seconds", "circuit_probe_seconds",
        "retry_after_max_seconds", "replay_rate_per_second", "replay_record_rate_per_second",
        "alert_evaluation_seconds",
    ),
    "schedules": (
        "scheduler_action_timeout_seconds", "scheduler_run_now_max_pending", "scheduler_retry_base_seconds",
        "scheduler_retry_max_seconds",
    ),
    "analytics": (
        "table_commit_interval_seconds", "snapshot_retention_days", "orphan_min_age_hours",
        "compact_target_file_bytes", "compact_small_file_bytes", "compact_max_files_per_call",
        "compact_max_bytes_per_call", "auto_maintenance", "maintenance_interval_seconds",
        "maintenance_tables_per_round", "compact_small_files", "query_concurrency", "query_threads",
        "query_niceness", "query_memory_limit", "query_inline_concurrency", "query_inline_max_bytes",
        "query_inline_budget_ms", "query_inline_memory_limit", "query_timeout_seconds",
        "query_max_temp_bytes",
    ),
    "limits": (
        "rate_limit_per_minute", "rate_limit_per_day", "webhook_rate_limit_per_minute",
        "webhook_rate_limit_per_day", "rate_limit_flush_ms", "rate_limit_local_share",
        "auth_failures_per_minute", "auth_failures_per_address_per_minute", "append_rows_per_minute",
        "query_max_result_rows", "query_max_bytes_scanned", "query_daily_bytes_scanned",
        "query_max_concurrent", "query_max_result_bytes", "load_daily_bytes", "max_request_bytes",
        "upload_quota_bytes", "upload_max_open",
    ),
    "sandbox": (
        "sandbox_workers", "sandbox_workers_per_company", "sandbox_queue_ms", "sandbox_niceness",
        "sandbox_company_cpu_share", "sandbox_company_cpu_burst_ms", "jsonpath_cpu_ms",
        "sql_analysis_in_sandbox", "sql_analysis_cpu_ms",
    ),
    "observability": (
        "log_level", "access_log", "access_log_slow_ms", "metrics_host", "metrics_port",
        "worker_metrics_port", "otlp_endpoint",
        "otlp_timeout_seconds",
    ),
}  # fmt: skip

# A default the model leaves to a property (derived from the data directory) or must not print.
_DEFAULT_TEXT = {
    "database_url": "`sqlite:///<data dir>/svc.db`",
    "warehouse": "`<data dir>/warehouse`",
    "object_store": "`<data dir>/objects`",
    "secret_key": "a development value",
}
_BINARY_UNITS = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def is_internal(field: FieldInfo) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and extra.get("internal") is True


def user_settings(model: type[BaseSettings]) -> dict[str, FieldInfo]:
    return {name: field for name, field in model.model_fields.items() if not is_internal(field)}


def area_of(name: str) -> str | None:
    return next((area for area, names in _AREA_OF.items() if name in names), None)


def env_name(model: type[BaseSettings], name: str) -> str:
    return f"{model.model_config.get('env_prefix', '')}{name}".upper()


def type_text(annotation: object) -> str:
    """A setting's type as a reader writes its value: ``int``, ``path``, ``one of a, b``."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        kinds = [type_text(arg) for arg in get_args(annotation) if arg is not type(None)]
        return " or ".join(kinds)
    if origin is Literal:
        return "one of " + ", ".join(f"`{arg}`" for arg in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "one of " + ", ".join(f"`{member.value}`" for member in annotation)
    if annotation is Path:
        return "path"
    if isinstance(annotation, type):
        return {"datetime": "ISO-8601 time"}.get(annotation.__name__, annotation.__name__)
    return str(annotation)


def default_text(name: str, field: FieldInfo) -> str:
    if name in _DEFAULT_TEXT:
        return _DEFAULT_TEXT[name]
    value = field.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Enum):
        return f"`{value.value}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, int) and name.endswith("_bytes"):
        unit = next(
            ((label, size) for label, size in _BINARY_UNITS if value >= size and not value % size), None
        )
        return f"`{value}` ({value // unit[1]} {unit[0]})" if unit else f"`{value}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render(model: type[BaseSettings] = Settings) -> str:
    """The whole reference: a lead, a table of contents by area, then one table per area."""
    fields = user_settings(model)
    lines = [
        "# Configuration",
        "",
        "<!-- Written by `make docs` from schemas/settings.py; edit the descriptions there. -->",
        "",
        "Every setting is an environment variable with the prefix `SVC_` (one pydantic-settings class,",
        "`schemas/settings.py`). A setting left unset takes the default below; sizes are in bytes, times in",
        "the unit their name ends with. `svc up` passes its environment to every process it starts.",
        "",
        " · ".join(f"[{area}](#{area})" for area in AREAS),
    ]
    for area, lead in AREAS.items():
        lines += [
            "",
            f"## {area}",
            "",
            lead,
            "",
            "| Variable | Type | Default | Meaning |",
            "|---|---|---|---|",
        ]
        for name, field in fields.items():
            if area_of(name) == area:
                lines.append(
                    f"| `{env_name(model, name)}` | {_cell(type_text(field.annotation))} | "
                    f"{_cell(default_text(name, field))} | {_cell(field.description or '')} |"
                )
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
