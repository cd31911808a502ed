"""Process settings: one frozen class, every key prefixed ``SVC_`` and documented in README."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from schemas.topics import WEBHOOK_DELIVERIES
from schemas.webhooks import MAX_BODY_BYTES

DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me"  # noqa: S105 - refused in production


class Environment(StrEnum):
    DEVELOPMENT = "development"
    PRODUCTION = "production"


class BrokerProfile(StrEnum):
    """Which broker the Kafka client tuning is for (``SVC_BROKER_PROFILE``)."""

    EMBEDDED = (
        "embedded"  # Tansu, the embedded broker (and any broker that holds an empty fetch its whole wait)
    )
    KAFKA = "kafka"  # Apache Kafka and compatible brokers, which answer a fetch as soon as a record arrives


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SVC_", frozen=True, extra="ignore")

    environment: Environment = Environment.DEVELOPMENT
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535)
    data_dir: Path = Path(".svc")
    # /readyz says the storage is full while a file system of the local storage (the data directory, the
    # SQLite file's, the local object store's and warehouse's) has less than this free.
    storage_min_free_bytes: int = Field(16 * 1024**2, ge=0, le=1024**4)
    database_url: str | None = None
    kafka_bootstrap: str | None = None
    broker_port: int = Field(9092, ge=0, le=65535)
    kafka_idempotence: bool = False
    # The Kafka client tuning (fetch waits, the producer's pace) is this profile's
    # (sinks/embedded_broker/profile.py); only the idle fetch wait can be set, unset: the profile's.
    broker_profile: BrokerProfile = BrokerProfile.EMBEDDED
    kafka_fetch_max_wait_ms: int | None = Field(None, ge=1, le=1500)
    # How long the broker waits for a worker's heartbeat (one a second) before it gives the worker's
    # partitions to the others. The embedded broker also holds a new group's first join for half of it.
    kafka_session_timeout_seconds: float = Field(10.0, ge=3, le=300)
    warehouse: str | None = None
    secret_key: str = DEV_SECRET_KEY
    # Unset: <data dir>/objects. A directory, or s3://bucket/prefix (credentials from the AWS chain).
    object_store: str | None = None
    object_store_bucket: str = Field("svc-local", pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
    # An S3-compatible service (MinIO, ...) instead of AWS S3; the region comes from AWS_REGION.
    s3_endpoint: str | None = None
    upload_link_seconds: int = Field(900, ge=1, le=7 * 24 * 3600)
    upload_max_part_bytes: int = Field(5 * 1024**3, ge=5 * 1024 * 1024)

    # S3 buckets at start-up: `svc up` creates the warehouse's and the object store's buckets when missing.
    s3_create_buckets: bool = True

    # S3 timeouts, for every S3 client of the service (object store, Iceberg FileIO, DuckDB's httpfs): an
    # endpoint that takes no connection or never answers fails a call in about attempts x timeout, not in
    # minutes. The read timeout bounds a wait without a byte, not a transfer (sinks/s3_limits.py: why 30 s).
    s3_connect_timeout_seconds: float = Field(5.0, gt=0, le=300)
    s3_read_timeout_seconds: float = Field(30.0, gt=0, le=3600)
    s3_max_attempts: int = Field(3, ge=1, le=10)

    # Group-commit threads per process on PostgreSQL (sinks/db/group_commit.py): with two, a batch waiting
    # for its COMMIT holds up no other. Always 1 on SQLite, which has one writer at a time anyway.
    db_committers: int = Field(1, ge=1, le=16)

    topic_prefix: str = "svc."
    topic_partitions: int = Field(4, ge=1, le=1024)
    # The webhook delivery topic carries the highest rates: more partitions keep each one short, and the
    # embedded broker's fetch cost grows with the batches stored in the partitions it reads (README).
    delivery_topic_partitions: int = Field(32, ge=1, le=1024)
    topic_replication: int = Field(1, ge=1, le=16)
    # The embedded broker's renewal (sinks/embedded_broker/): `svc up` moves every svc topic to a new
    # generation when a partition the workers read holds renew_records records or the broker renew_mib of
    # memory, at most once per renew_min_seconds, checked every check_seconds; 0 turns a limit off. The old
    # generation is deleted once the workers have read it to its end, or after renew_drain_seconds at most.
    embedded_broker_renew_records: int = Field(2000, ge=0)
    embedded_broker_renew_mib: int = Field(2048, ge=0)
    embedded_broker_renew_min_seconds: float = Field(120.0, ge=0)
    embedded_broker_renew_drain_seconds: float = Field(60.0, gt=0, le=3600)
    embedded_broker_check_seconds: float = Field(10.0, gt=0, le=3600)
    # Set by `svc up` on the workers it starts after the embedded broker restarted after a crash: work still
    # QUEUED from before that moment was in the old broker only, so the reconcilers publish it again at once.
    broker_started_at: datetime | None = None
    # Set by `svc up` with the embedded broker: the file of its topic generations and absence
    # (sinks/embedded_broker/generations.py), read by every producer and worker.
    embedded_broker_signal_file: Path | None = None
    worker_id: str = "svc-worker"
    worker_concurrency: int = Field(256, ge=1, le=4096)
    reconcile_interval_seconds: float = Field(5.0, gt=0)
    queued_grace_seconds: float = Field(30.0, gt=0)
    processing_grace_seconds: float = Field(10.0, ge=0)

    # Leases on scheduled runs and webhook delivery attempts in flight (core/leases.py): the acting worker
    # renews them every third of lease_seconds; a reconciler re-runs an item only once its lease has run out.
    # A worker stops renewing an item held longer than lease_cap_factor x its handler timeout.
    lease_seconds: float = Field(15.0, ge=1, le=600)
    lease_cap_factor: float = Field(3.0, ge=1, le=100)

    rate_limit_per_minute: int = Field(600, ge=1)
    rate_limit_per_day: int = Field(200_000, ge=1)
    webhook_rate_limit_per_minute: int = Field(120_000, ge=1)
    webhook_rate_limit_per_day: int = Field(50_000_000, ge=1)
    # How long the public trigger keeps a webhook's row (ingress/webhooks/trigger_targets.py); 0: never.
    trigger_cache_seconds: float = Field(1.0, ge=0, le=60)
    append_rows_per_minute: int = Field(6_000_000, ge=1)
    table_commit_interval_seconds: float = Field(1.0, gt=0, le=5)
    # Durable table commits (sinks/iceberg/durable_io.py): holds a commit whose files are written before the
    # catalog names them; for crash tests that kill the writer in between.
    table_pause_before_commit_seconds: float = Field(0.0, ge=0, le=120)
    # Table maintenance (issue 26: /svc_poweruser/analytics/tables/maintain, sinks/iceberg/maintenance.py).
    # Snapshots older than the retention expire (the time-travel horizon); a file no snapshot names is removed
    # once it is older than the orphan age (longer than any commit takes to write its files); compaction
    # rewrites files under the small size into files of about the target size, at most max files and max
    # bytes of input per call, so that one call ends in bounded time.
    snapshot_retention_days: float = Field(7.0, ge=0)
    orphan_min_age_hours: float = Field(72.0, ge=0)
    compact_target_file_bytes: int = Field(64 * 1024**2, ge=1024**2, le=1024**3)
    compact_small_file_bytes: int = Field(8 * 1024**2, ge=1)
    compact_max_files_per_call: int = Field(2_000, ge=2, le=100_000)
    compact_max_bytes_per_call: int = Field(512 * 1024**2, ge=1024**2)
    # Automatic table maintenance (issue 26: streams/analytics/maintenance.py): every interval each worker
    # looks at up
    # to tables_per_round tables (oldest-checked first, one lease per table), compacts one whose partition
    # holds more than compact_small_files small files, and once a day expires snapshots and removes orphans.
    auto_maintenance: bool = True
    maintenance_interval_seconds: float = Field(300.0, ge=1, le=86_400)
    maintenance_tables_per_round: int = Field(20, ge=1, le=10_000)
    compact_small_files: int = Field(64, ge=1, le=100_000)
    scheduler_action_timeout_seconds: float = Field(300.0, gt=0, le=900)
    # Holds a claimed scheduled run before its action; for tests that stop a worker in between.
    scheduler_pause_before_action_seconds: float = Field(0.0, ge=0, le=60)
    # Scheduler controls (issue 25: /clients/scheduled-events/run-now): runs of one event asked for by
    # /run-now and not yet ended; one more is refused (429), so a caller cannot queue unbounded handler calls.
    scheduler_run_now_max_pending: int = Field(10, ge=1, le=1000)
    # Scheduler retries (issue 25: retryPolicy, core/schedules/retries.py): a failed run's first retry comes
    # about base seconds after the failure (±20% jitter), each next one twice as late, none later than max.
    scheduler_retry_base_seconds: float = Field(1.0, ge=0.01, le=3600)
    scheduler_retry_max_seconds: float = Field(300.0, ge=0.01, le=86_400)
    query_concurrency: int = Field(4, ge=1, le=64)
    query_threads: int = Field(2, ge=1, le=256)
    query_memory_limit: str = "2GB"
    # Short queries answered in the ingress process while their caller waits
    # (ingress/analytics/inline_queries.py),
    # off by default (0: every query goes to a worker, as the design has it): at most this many at once per
    # ingress process, one per company; each may scan up to inline_max_bytes (estimated) and run
    # inline_budget_ms (or the call's waitMs, if shorter) before it is stopped and handed to a worker.
    query_inline_concurrency: int = Field(0, ge=0, le=64)
    query_inline_max_bytes: int = Field(256 * 1024**2, ge=0)
    query_inline_budget_ms: int = Field(1000, ge=10, le=60_000)
    query_inline_memory_limit: str = "512MB"
    query_timeout_seconds: float = Field(900.0, gt=0, le=900)
    query_max_result_rows: int = Field(1_000_000, ge=1)
    query_max_bytes_scanned: int = Field(100 * 1024**3, ge=1)
    query_daily_bytes_scanned: int = Field(1024**4, ge=1)
    query_max_concurrent: int = Field(8, ge=1)
    # Query result size: a result stops growing at this many bytes (Arrow's in-memory size of the rows
    # kept) and the job is marked truncated, as at the row limit.
    query_max_result_bytes: int = Field(1024**3, ge=1)
    load_daily_bytes: int = Field(100 * 1024**3, ge=1)
    max_request_bytes: int = Field(MAX_BODY_BYTES + 64 * 1024, ge=1024)

    # Shared rate limits and failed-authentication lockouts (ingress/shared_counts.py, auth_throttle.py).
    rate_limit_flush_ms: int = Field(200, ge=10, le=5000)
    rate_limit_local_share: float = Field(0.02, gt=0, le=1)
    # The browser console at /console (ingress/console/, docs/console.md) and how long a sign-in lasts.
    console: bool = True
    console_session_seconds: int = Field(8 * 3600, ge=60, le=30 * 86_400)
    auth_failures_per_minute: int = Field(20, ge=1)
    # Unset: auth_failures_per_minute. Higher where many callers share an address (NAT, a sender service).
    auth_failures_per_address_per_minute: int | None = Field(None, ge=1)

    # Tenant isolation of uploads, describe/preview reads and DuckDB spill files: bytes held in a company's
    # incomplete uploads, its open uploads, their lifetime, and each company database's spill space.
    upload_quota_bytes: int = Field(50 * 1024**3, ge=1)
    upload_max_open: int = Field(100, ge=1)
    upload_expiry_seconds: int = Field(86_400, ge=1)
    query_max_temp_bytes: int = Field(10 * 1000**3, ge=0)

    # Destinations (docs/webhooks.md#destinations): a destination's circuit opens after circuit_failures
    # failed attempts in a row, or over circuit_failure_ratio of at least circuit_min_attempts attempts
    # within circuit_window_seconds; while open, one probe every circuit_probe_seconds. A 429 or 503 with
    # Retry-After holds the destination's calls back for that long, at most retry_after_max_seconds.
    circuit_failures: int = Field(10, ge=1, le=100_000)
    circuit_failure_ratio: float = Field(0.5, gt=0, le=1)
    circuit_min_attempts: int = Field(20, ge=1, le=1_000_000)
    circuit_window_seconds: float = Field(60.0, gt=0, le=86_400)
    circuit_probe_seconds: float = Field(30.0, gt=0, le=86_400)
    retry_after_max_seconds: float = Field(300.0, ge=0, le=86_400)

    # Retention (docs/operations.md): how long each kind of record is kept, unless a company's own values
    # (/svc_poweruser/retention/update) say otherwise; the leader worker's sweep deletes what is past it.
    history_retention_seconds: int = Field(30 * 86_400, ge=1)
    runs_retention_seconds: int = Field(90 * 86_400, ge=1)
    jobs_retention_seconds: int = Field(30 * 86_400, ge=1)
    retention_sweep_seconds: float = Field(300.0, gt=0, le=86_400)
    # How often the leader worker evaluates the alert rules and sends the notifications owed.
    alert_evaluation_seconds: float = Field(5.0, gt=0, le=3_600)
    # A trigger's request body over this size is stored in the object store; the database keeps its key.
    inline_body_bytes: int = Field(64 * 1024, ge=0, le=MAX_BODY_BYTES)

    log_level: str = "INFO"
    # The ingress's access log (logger svc.access, at INFO): "all" logs every request; "errors" (default) only
    # 5xx answers and requests slower than access_log_slow_ms, so the trigger's thousands of 202s a second
    # cost no log line each (metrics count every request); "off" none.
    access_log: Literal["all", "errors", "off"] = "errors"
    access_log_slow_ms: int = Field(1000, ge=0)
    # Prometheus metrics: their own listener, loopback by default, never the public port. 0 serves none.
    # `svc up` gives its ingress processes this port and the ones after it (ingress-2 on port + 1, ...).
    metrics_host: str = "127.0.0.1"
    metrics_port: int = Field(9464, ge=0, le=65535)
    shutdown_timeout_seconds: float = Field(20.0, gt=0)
    # `svc up` runs its worker at this niceness: when the machine's cores are all busy, the ingress and the
    # broker (whose answers callers wait on) come first, and the worker's background work yields.
    worker_niceness: int = Field(0, ge=0, le=19)
    # Tenant isolation of the script sandbox (validation and transform scripts, JSONPath beyond plain paths,
    # SQL analysis): worker subprocesses shared fairly by the companies of one ingress process.
    sandbox_workers: int = Field(6, ge=1, le=64)
    sandbox_workers_per_company: int = Field(2, ge=1, le=64)
    sandbox_queue_ms: int = Field(250, ge=0, le=10_000)
    sandbox_niceness: int = Field(19, ge=0, le=19)
    # Per-company CPU allowance in the sandbox: the share of the machine's cores one company's sandboxed work
    # may use on average (0 turns it off), and the CPU it may spend at once before the share applies.
    sandbox_company_cpu_share: float = Field(0.1, ge=0.0, le=64.0)
    sandbox_company_cpu_burst_ms: int = Field(1000, ge=100, le=600_000)
    jsonpath_cpu_ms: int = Field(250, ge=10, le=10_000)
    # SQL analysis budget: /query and /estimate parse and compile the caller's SQL in a sandbox worker under
    # this CPU budget (ingress/analytics/query_planning.py); false analyses it in the ingress process,
    # unbounded.
    sql_analysis_in_sandbox: bool = True
    sql_analysis_cpu_ms: int = Field(2000, ge=50, le=60_000)

    # Process counts of `svc up` (svc/supervisor.py). Unset: 1 each on SQLite (one writer at a time, so more
    # is refused at start) and the machine's core count on PostgreSQL.
    ingress_processes: int | None = Field(None, ge=1, le=256)
    worker_processes: int | None = Field(None, ge=1, le=256)
    # How long `svc up` waits for its ingress processes to answer /healthz at start before it gives up.
    startup_timeout_seconds: float = Field(60.0, gt=0, le=3600)

    # Webhook provider signatures (webhookConfig.verificationConfig): the service's public URL as providers
    # call it (scheme, host, optional path prefix), for the providers that sign the URL (Twilio). Unset: the
    # request's own scheme and Host header, which a TLS-terminating proxy in front changes.
    public_base_url: str | None = Field(None, pattern=r"^https?://[^/?#@\s]+(/[^?#\s]*)?$")

    # Webhook replay (/svc_poweruser/custom-webhooks/replay): replayed executions a company's replays hand to
    # the handler queue per second, all of them together, so a bulk replay never crowds out live traffic;
    # and executions the replay calls of one ingress process record per second, all of them together (a
    # call records every execution before it answers, in the process that answers live triggers).
    replay_rate_per_second: float = Field(50.0, gt=0, le=10_000)
    replay_record_rate_per_second: float = Field(250.0, gt=0, le=100_000)

    # Tracing of webhook deliveries (core/tracing.py, sinks/telemetry.py): the W3C traceparent always travels
    # (record headers, the handler call, the history's traceId); spans are exported only when this OTLP/HTTP
    # traces endpoint is set (for example http://collector:4318/v1/traces). Unset: no exporter is loaded.
    otlp_endpoint: str | None = Field(None, pattern=r"^https?://[^\s]+$")
    otlp_timeout_seconds: float = Field(5.0, gt=0, le=60)

    @field_validator("broker_started_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value

    @model_validator(mode="after")
    def _refuse_default_secret(self) -> Settings:
        if self.environment is Environment.PRODUCTION and self.secret_key == DEV_SECRET_KEY:
            raise ValueError("SVC_SECRET_KEY must be set to a private value when SVC_ENVIRONMENT=production")
        if len(self.secret_key) < 16:
            raise ValueError("SVC_SECRET_KEY must be at least 16 characters")
        return self

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'svc.db').resolve()}"

    @property
    def resolved_warehouse(self) -> str:
        if self.warehouse:
            return self.warehouse
        return str((self.data_dir / "warehouse").resolve())

    @property
    def resolved_object_store(self) -> str:
        """``s3://bucket/prefix`` as given, or the absolute path of the local object directory."""
        if self.object_store and self.object_store.startswith("s3://"):
            return self.object_store.rstrip("/")
        return str(Path(self.object_store or self.data_dir / "objects").expanduser().resolve())

    @property
    def resolved_db_committers(self) -> int:
        if self.resolved_database_url.startswith("sqlite"):
            return 1
        return self.db_committers

    @property
    def embedded_broker(self) -> bool:
        return not self.kafka_bootstrap

    def queued_grace_at(self, moment: datetime) -> timedelta:
        """How long work may stay QUEUED before a reconciler publishes it again: ``queued_grace_seconds``,
        shorter while the embedded broker is newer than that (what was queued before it started is lost)."""
        grace = timedelta(seconds=self.queued_grace_seconds)
        if self.broker_started_at is None:
            return grace
        return max(timedelta(0), min(grace, moment - self.broker_started_at))

    def topic(self, name: str) -> str:
        return f"{self.topic_prefix}{name}"

    def partitions(self, name: str) -> int:
        """How many partitions the topic ``name`` (unprefixed) is created with."""
        return self.delivery_topic_partitions if name == WEBHOOK_DELIVERIES else self.topic_partitions
