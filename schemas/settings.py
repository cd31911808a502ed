"""Process settings: one frozen class, every key prefixed ``SVC_``; each description is a row of
docs/configuration.md, which ``make docs`` writes (svc/config_reference.py)."""

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

    environment: Environment = Field(
        Environment.DEVELOPMENT, description="`production` refuses the default `SVC_SECRET_KEY`."
    )
    host: str = Field("127.0.0.1", description="Address the ingress listens on.")
    port: int = Field(8080, ge=0, le=65535, description="Port of the ingress.")
    data_dir: Path = Field(
        Path(".svc"), description="Local state: SQLite DB, warehouse, uploads, child logs (`logs/`)."
    )
    # /readyz says the storage is full while a file system of the local storage (the data directory, the
    # SQLite file's, the local object store's and warehouse's) has less than this free.
    storage_min_free_bytes: int = Field(
        16 * 1024**2,
        ge=0,
        le=1024**4,
        description=(
            "`/readyz` answers 503 with `storage: full` while a file system of the local storage (the"
            " data directory, and the SQLite file's, local object store's or local warehouse's where "
            "they are elsewhere) has less than this free, or no inode left "
            "([operations](operations.md#when-the-disk-is-full))."
        ),
    )
    database_url: str | None = Field(
        None, description="Metadata DB; `postgresql://user:pass@host/db` for PostgreSQL."
    )
    kafka_bootstrap: str | None = Field(
        None,
        description=(
            "Kafka bootstrap servers (`host:port[,host:port]`). Unset: `svc up` starts the embedded broker."
        ),
    )
    broker_port: int = Field(
        9092, ge=0, le=65535, description="Port of the embedded broker (`0` picks a free one)."
    )
    kafka_idempotence: bool = Field(
        False,
        description="Idempotent producer; enable on real Kafka (the embedded broker does not support it).",
    )
    # The Kafka client tuning (fetch waits, the producer's pace) is this profile's
    # (sinks/embedded_broker/profile.py); only the idle fetch wait can be set, unset: the profile's.
    broker_profile: BrokerProfile = Field(
        BrokerProfile.EMBEDDED,
        description=(
            "Which broker the Kafka client's tuning is for: `embedded` (the embedded broker, which "
            "holds an empty fetch for its whole wait: short waits) or `kafka` (Apache Kafka and "
            "compatible brokers, which answer a waiting fetch the moment a record arrives: 500 ms "
            "waits, no idle polling). The tuning (fetch waits, the producer's pace) is the profile's,"
            " constants of `sinks/embedded_broker/profile.py`, explained in docs/architecture.md "
            '("Client tuning by broker profile").'
        ),
    )
    kafka_fetch_max_wait_ms: int | None = Field(
        None,
        ge=1,
        le=1500,
        description=(
            "How long an idle worker's fetch waits at the broker when no record is there; unset: the "
            "profile's (20 ms embedded, 500 ms kafka). The embedded broker waits the whole time, so "
            "this bounds how long the first record of a burst sits unseen; a longer one saves idle "
            "CPU where many idle stacks share a machine (the test suite sets 100). The waits of a "
            "stream never exceed it."
        ),
    )
    # How long the broker waits for a worker's heartbeat (one a second) before it gives the worker's
    # partitions to the others. The embedded broker also holds a new group's first join for half of it.
    kafka_session_timeout_seconds: float = Field(
        10.0,
        ge=3,
        le=300,
        description=(
            "How long the broker waits for a worker's heartbeat (sent every second) before it moves "
            "that worker's partitions to the other workers: a killed or hung worker's share of the "
            "topics waits this long. The embedded broker also holds a new consumer group's first join"
            " for half of it, so a worker's first start on the embedded broker takes about that long "
            "(the tests run at 4 s). Shorter moves work sooner but risks a rebalance when a loaded "
            "machine delays heartbeats; at least 3."
        ),
    )
    warehouse: str | None = Field(
        None,
        description=(
            "Iceberg warehouse location: a directory, or `s3://bucket/prefix` (pyiceberg writes and "
            "DuckDB reads it at `SVC_S3_ENDPOINT`, or AWS S3 when that is unset, with the key and "
            "region of the standard AWS chain, `AWS_REGION` first; see docs/analytics-queries.md, S3 "
            "warehouse)."
        ),
    )
    secret_key: str = Field(
        DEV_SECRET_KEY,
        description="Signs links and protects masked values; must be set in production (≥ 16 characters).",
    )
    # Unset: <data dir>/objects. A directory, or s3://bucket/prefix (credentials from the AWS chain).
    object_store: str | None = Field(
        None,
        description=(
            "Object store of uploads and query results: a directory, or `s3://bucket/prefix` (AWS "
            "credentials and `AWS_REGION` from the standard AWS chain)."
        ),
    )
    object_store_bucket: str = Field(
        "svc-local",
        pattern=r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$",
        description="Bucket name in the `s3://<bucket>/<key>` URIs of the local object store.",
    )
    # An S3-compatible service (MinIO, ...) instead of AWS S3; the region comes from AWS_REGION.
    s3_endpoint: str | None = Field(
        None,
        description=(
            "URL of an S3-compatible service (MinIO), e.g. `http://minio:9000`, for an `s3://` object"
            " store and an `s3://` warehouse, reached with path-style URLs, over TLS unless the "
            "scheme is `http`; unset: AWS S3."
        ),
    )
    upload_link_seconds: int = Field(
        900, ge=1, le=7 * 24 * 3600, description="Lifetime of the upload part links (`/multipart-part-urls`)."
    )
    upload_max_part_bytes: int = Field(
        5 * 1024**3, ge=5 * 1024 * 1024, description="Largest upload part (5 GiB); a larger part gets 413."
    )

    # S3 buckets at start-up: `svc up` creates the warehouse's and the object store's buckets when missing.
    s3_create_buckets: bool = Field(
        True,
        description=(
            "`svc up` creates the buckets of an `s3://` warehouse and object store when they are "
            "missing; `false` leaves that to whoever provisions S3."
        ),
    )

    # S3 timeouts, for every S3 client of the service (object store, Iceberg FileIO, DuckDB's httpfs): an
    # endpoint that takes no connection or never answers fails a call in about attempts x timeout, not in
    # minutes. The read timeout bounds a wait without a byte, not a transfer (sinks/s3_limits.py: why 30 s).
    s3_connect_timeout_seconds: float = Field(
        5.0,
        gt=0,
        le=300,
        description=(
            "Seconds every S3 client (object store, start-up bucket check, Iceberg FileIO, DuckDB) "
            "waits for a connection."
        ),
    )
    s3_read_timeout_seconds: float = Field(
        30.0,
        gt=0,
        le=3600,
        description=(
            "Seconds an S3 client waits for the next byte of an answer (time without progress, not a "
            "transfer's length; DuckDB uses the longer of the two timeouts)."
        ),
    )
    s3_max_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description=(
            "Attempts per S3 call, the first included: an endpoint that takes no connection fails a "
            "call in about 15 s, one that never answers in about 90 s, answered 503 with "
            "`Retry-After`."
        ),
    )

    # Group-commit threads per process on PostgreSQL (sinks/db/group_commit.py): with two, a batch waiting
    # for its COMMIT holds up no other. Always 1 on SQLite, which has one writer at a time anyway.
    db_committers: int = Field(
        1,
        ge=1,
        le=16,
        description=(
            "Group-commit threads per ingress and worker process on PostgreSQL: concurrent requests' "
            "small writes share one transaction per thread; with two, a batch waiting for its "
            "`COMMIT` holds up no other (for a database server on another machine, where each commit "
            "waits a network round trip). On this project's 2-core machine, with PostgreSQL on the "
            "same cores, two were no better than one (performance.md). Always 1 on SQLite, which "
            "takes one writer at a time."
        ),
    )

    topic_prefix: str = Field("svc.", description="Prefix of every topic name.")
    topic_partitions: int = Field(
        4,
        ge=1,
        le=1024,
        description="Partitions of each topic created at start-up (caps the useful number of workers).",
    )
    # The webhook delivery topic carries the highest rates: more partitions keep each one short, and the
    # embedded broker's fetch cost grows with the batches stored in the partitions it reads
    # (docs/architecture.md).
    delivery_topic_partitions: int = Field(
        32,
        ge=1,
        le=1024,
        description=(
            "Partitions of `svc.webhook.deliveries`, the busiest topic, where svc creates the topics "
            "(`svc up`, workers; `compose/` creates its own). More partitions keep each short; the "
            "embedded broker's fetch cost grows with the batches stored in the partitions it reads, "
            "and each fetch costs it a little per partition (a stack fed 5 deliveries/s: broker 22% "
            "of a core with 16, 24% with 32, 36% with 64)."
        ),
    )
    topic_replication: int = Field(
        1, ge=1, le=16, description="Replication factor of created topics (3 on a production cluster)."
    )
    # The embedded broker's renewal (sinks/embedded_broker/): `svc up` moves every svc topic to a new
    # generation when a partition the workers read holds renew_records records or the broker renew_mib of
    # memory, at most once per renew_min_seconds, checked every check_seconds; 0 turns a limit off. The old
    # generation is deleted once the workers have read it to its end, or after renew_drain_seconds at most.
    embedded_broker_renew_records: int = Field(
        2000,
        ge=0,
        description=(
            "`svc up` renews the embedded broker (moves every svc topic to a new generation and "
            "deletes the old one; no process stops) when a partition the workers read holds this many"
            " records (architecture.md says why); `0` turns this limit off."
        ),
    )
    embedded_broker_renew_mib: int = Field(
        2048,
        ge=0,
        description=(
            "... or when the embedded broker's resident memory reaches this many MiB (the result "
            "topic, which only outside consumers read, grows it too); `0` turns this limit off."
        ),
    )
    embedded_broker_renew_min_seconds: float = Field(
        120.0, ge=0, description="At least this long between two renewals, however fast the partitions grow."
    )
    embedded_broker_renew_drain_seconds: float = Field(
        60.0,
        gt=0,
        le=3600,
        description=(
            "The longest a renewal waits for the workers to read the old generation to its end; past "
            "it the old generation is deleted anyway (logged) and the reconcilers publish its pending"
            " work again."
        ),
    )
    embedded_broker_check_seconds: float = Field(
        10.0,
        gt=0,
        le=3600,
        description=(
            "How often `svc up` reads the embedded broker's end offsets and memory for the two limits above."
        ),
    )
    # Set by `svc up` on the workers it starts after the embedded broker restarted after a crash: work still
    # QUEUED from before that moment was in the old broker only, so the reconcilers publish it again at once.
    broker_started_at: datetime | None = Field(None, json_schema_extra={"internal": True})
    # Set by `svc up` with the embedded broker: the file of its topic generations and absence
    # (sinks/embedded_broker/generations.py), read by every producer and worker.
    embedded_broker_signal_file: Path | None = Field(None, json_schema_extra={"internal": True})
    worker_id: str = Field("svc-worker", description="Faust app id = Kafka consumer group of the workers.")
    worker_concurrency: int = Field(
        256,
        ge=1,
        le=4096,
        description=(
            "Handler calls a worker runs at once (an attempt holds its slot from its claim to its "
            "finish, about two group commits and the handler call: 64 slots capped the drain near 800"
            " deliveries/s)."
        ),
    )
    reconcile_interval_seconds: float = Field(
        5.0, gt=0, description="How often the leader worker looks for lost or abandoned deliveries."
    )
    queued_grace_seconds: float = Field(
        30.0, gt=0, description="A delivery handed to Kafka but unclaimed for this long is published again."
    )
    processing_grace_seconds: float = Field(
        10.0,
        ge=0,
        description="Added to a webhook's `timeoutSeconds` before a running attempt counts as lost.",
    )

    # Leases on scheduled runs and webhook delivery attempts in flight (core/leases.py): the acting worker
    # renews them every third of lease_seconds; a reconciler re-runs an item only once its lease has run out.
    # A worker stops renewing an item held longer than lease_cap_factor x its handler timeout.
    lease_seconds: float = Field(
        15.0,
        ge=1,
        le=600,
        description=(
            "Lease on a scheduled run or delivery attempt in flight: its worker renews it every third"
            " of this, and a reconciler re-runs the item only once the lease has run out. Keep worker"
            " clocks synchronised well within it."
        ),
    )
    lease_cap_factor: float = Field(
        3.0,
        ge=1,
        le=100,
        description=(
            "A worker stops renewing an item held longer than this x its handler timeout, so a wedged"
            " worker loses it one lease later."
        ),
    )

    rate_limit_per_minute: int = Field(600, ge=1, description="Requests per key per minute.")
    rate_limit_per_day: int = Field(200_000, ge=1, description="Requests per key per UTC day.")
    webhook_rate_limit_per_minute: int = Field(
        120_000, ge=1, description="Trigger calls per webhook key per minute."
    )
    webhook_rate_limit_per_day: int = Field(
        50_000_000, ge=1, description="Trigger calls per webhook key per UTC day."
    )
    # How long the public trigger keeps a webhook's row (ingress/webhooks/trigger_targets.py); 0: never.
    trigger_cache_seconds: float = Field(
        1.0,
        ge=0,
        le=60,
        description=(
            "How long the public trigger keeps a webhook's row; the API's own changes apply at once, "
            "changes made elsewhere within this time (`0`: read on every delivery)."
        ),
    )
    append_rows_per_minute: int = Field(
        6_000_000,
        ge=1,
        description=(
            "Appended rows per company per minute (the plan's limit; over it `/append-rows` is 429 `QUOTA`)."
        ),
    )
    table_commit_interval_seconds: float = Field(
        1.0,
        gt=0,
        le=5,
        description="How long the table writer gathers writes into one Iceberg commit per table.",
    )
    # Durable table commits (sinks/iceberg/durable_io.py): holds a commit whose files are written before the
    # catalog names them; for crash tests that kill the writer in between.
    table_pause_before_commit_seconds: float = Field(0.0, ge=0, le=120, json_schema_extra={"internal": True})
    # Table maintenance (issue 26: /svc_poweruser/analytics/tables/maintain, sinks/iceberg/maintenance.py).
    # Snapshots older than the retention expire (the time-travel horizon); a file no snapshot names is removed
    # once it is older than the orphan age (longer than any commit takes to write its files); compaction
    # rewrites files under the small size into files of about the target size, at most max files and max
    # bytes of input per call, so that one call ends in bounded time.
    snapshot_retention_days: float = Field(
        7.0,
        ge=0,
        description=(
            "Table maintenance expires snapshots older than this (the time-travel horizon; a busy "
            "table's writer keeps a shorter history, see docs/tables.md)."
        ),
    )
    orphan_min_age_hours: float = Field(
        72.0, ge=0, description="A file no snapshot names is removed only once it is older than this."
    )
    compact_target_file_bytes: int = Field(
        64 * 1024**2, ge=1024**2, le=1024**3, description="Size compaction packs small files up to."
    )
    compact_small_file_bytes: int = Field(
        8 * 1024**2, ge=1, description="Data files under this size are compacted."
    )
    compact_max_files_per_call: int = Field(
        2_000,
        ge=2,
        le=100_000,
        description="Most input files one compaction (a `maintain` call or a worker's round) rewrites.",
    )
    compact_max_bytes_per_call: int = Field(
        512 * 1024**2, ge=1024**2, description="Most input bytes one compaction rewrites."
    )
    # Automatic table maintenance (issue 26: streams/analytics/maintenance.py): every interval each worker
    # looks at up
    # to tables_per_round tables (oldest-checked first, one lease per table), compacts one whose partition
    # holds more than compact_small_files small files, and once a day expires snapshots and removes orphans.
    auto_maintenance: bool = Field(
        True,
        description="The workers maintain tables on their own (compaction, snapshot expiry, orphan removal).",
    )
    maintenance_interval_seconds: float = Field(
        300.0, ge=1, le=86_400, description="Time between a worker's maintenance rounds."
    )
    maintenance_tables_per_round: int = Field(
        20, ge=1, le=10_000, description="Most tables one worker looks at per round."
    )
    compact_small_files: int = Field(
        64,
        ge=1,
        le=100_000,
        description="A table is compacted when one partition holds more small files than this.",
    )
    scheduler_action_timeout_seconds: float = Field(
        300.0,
        gt=0,
        le=900,
        description="Time limit of a scheduled event's action (handler call or svcdb operation).",
    )
    # Holds a claimed scheduled run before its action; for tests that stop a worker in between.
    scheduler_pause_before_action_seconds: float = Field(
        0.0, ge=0, le=60, json_schema_extra={"internal": True}
    )
    # Scheduler controls (issue 25: /clients/scheduled-events/run-now): runs of one event asked for by
    # /run-now and not yet ended; one more is refused (429), so a caller cannot queue unbounded handler calls.
    scheduler_run_now_max_pending: int = Field(
        10,
        ge=1,
        le=1000,
        description="`/run-now` runs of one event that may be queued or running at once; one more is 429.",
    )
    # Scheduler retries (issue 25: retryPolicy, core/schedules/retries.py): a failed run's first retry comes
    # about base seconds after the failure (±20% jitter), each next one twice as late, none later than max.
    scheduler_retry_base_seconds: float = Field(
        1.0,
        ge=0.01,
        le=3600,
        description=(
            "Delay before a failed scheduled run's first retry (±20% jitter); each later retry doubles it."
        ),
    )
    scheduler_retry_max_seconds: float = Field(
        300.0, ge=0.01, le=86_400, description="No retry delay of a scheduled run exceeds this."
    )
    query_concurrency: int = Field(
        4, ge=1, le=64, description="Query jobs one worker runs at once (each on its own DuckDB connection)."
    )
    query_threads: int = Field(
        2, ge=1, le=256, description="DuckDB threads per company database in a worker."
    )
    query_niceness: int = Field(
        19,
        ge=0,
        le=19,
        description=(
            "The niceness of the threads that run queries (DuckDB's and the ones calling it) in workers and "
            "the ingress; at 19 (the default) they join Linux's idle class, as the script sandbox does: "
            "triggers and deliveries always run first, and a query runs at full speed on CPU nothing else "
            "wants (on a machine the service saturates, a query waits, its time limit counting). `0` leaves "
            "them at the service's priority."
        ),
    )
    query_memory_limit: str = Field(
        "2GB", description="DuckDB memory limit per company database in a worker."
    )
    # Short queries answered in the ingress process while their caller waits
    # (ingress/analytics/inline_queries.py), as BigQuery's short query mode does: at most this many at once
    # per ingress process, one per company; each may scan up to inline_max_bytes (estimated) and run
    # inline_budget_ms (or the call's waitMs, if shorter) before it is stopped and handed to a worker.
    query_inline_concurrency: int = Field(
        1,
        ge=0,
        le=64,
        description=(
            "Short queries one ingress process may run itself while their caller waits (`waitMs` ≥ "
            "100), at most one per company; past the limits a query goes to a worker; `0` sends every "
            "query to a worker."
        ),
    )
    query_inline_max_bytes: int = Field(
        256 * 1024**2, ge=0, description="The largest scan estimate of a query the ingress runs itself."
    )
    query_inline_budget_ms: int = Field(
        1000,
        ge=10,
        le=60_000,
        description=(
            "How long the ingress runs a query (or the call's `waitMs`, if shorter) before it stops "
            "it and hands it to a worker."
        ),
    )
    query_inline_memory_limit: str = Field(
        "512MB", description="DuckDB memory limit per company database in an ingress process."
    )
    query_timeout_seconds: float = Field(
        900.0,
        gt=0,
        le=900,
        description="Run-time limit of a query job (at most 15 minutes); past it the job is `TIMED_OUT`.",
    )
    query_max_result_rows: int = Field(
        1_000_000,
        ge=1,
        description=(
            "The plan's result-row limit: the default `maxRows`; a larger `maxRows` is 413 `ROW_LIMIT`."
        ),
    )
    query_max_bytes_scanned: int = Field(
        100 * 1024**3,
        ge=1,
        description=(
            "The plan's per-query scan limit (bytes, after partition pruning); over it 413 `SCAN_LIMIT`."
        ),
    )
    query_daily_bytes_scanned: int = Field(
        1024**4,
        ge=1,
        description="The plan's daily scan allowance per company (UTC day); over it 413 `SCAN_LIMIT`.",
    )
    query_max_concurrent: int = Field(
        8, ge=1, description="Queued or running queries per company; one more is 429 `QUOTA`."
    )
    # Query result size: a result stops growing at this many bytes (Arrow's in-memory size of the rows
    # kept) and the job is marked truncated, as at the row limit.
    query_max_result_bytes: int = Field(
        1024**3,
        ge=1,
        description=(
            "The plan's result-size limit: a query result stops at this many bytes (Arrow's in-memory"
            " size of the rows kept) and the job is `truncated`, with a note in `/job-status`."
        ),
    )
    load_daily_bytes: int = Field(
        100 * 1024**3,
        ge=1,
        description=(
            "The plan's data loaded per day per company (bytes of the loaded files, UTC day); over it"
            " `/load-from-s3` is 429 `QUOTA`."
        ),
    )
    max_request_bytes: int = Field(
        MAX_BODY_BYTES + 64 * 1024,
        ge=1024,
        description="Largest accepted request body (10 MiB of payload plus headroom); larger gets 413.",
    )

    # Shared rate limits and failed-authentication lockouts (ingress/shared_counts.py, auth_throttle.py).
    rate_limit_flush_ms: int = Field(
        200,
        ge=10,
        le=5000,
        description=(
            "How often each ingress process sends its rate-limit and failed-authentication counts to "
            "the shared table (`rate_counters`) and reads the totals back."
        ),
    )
    rate_limit_local_share: float = Field(
        0.02,
        gt=0,
        le=1,
        description=(
            "Share of a limit a process may admit beyond the last shared total (at least 16 requests,"
            " 4 failures or 10,000 rows); P processes overshoot a limit by at most (P-1) x that."
        ),
    )
    console: bool = Field(
        True, description="The browser console at `/console` ([console](console.md)); `false` turns it off."
    )
    console_session_seconds: int = Field(
        8 * 3600, ge=60, le=30 * 86_400, description="How long a console sign-in lasts (seconds)."
    )
    auth_failures_per_minute: int = Field(
        20,
        ge=1,
        description=(
            "Refused keys per minute against one key id, and from one address unless the next setting"
            " is set; after that, 429 with `Retry-After` until the minute ends, even for a correct "
            "key."
        ),
    )
    # Unset: auth_failures_per_minute. Higher where many callers share an address (NAT, a sender service).
    auth_failures_per_address_per_minute: int | None = Field(
        None,
        ge=1,
        description="The per-address failure limit, where it should differ (many callers share one address).",
    )

    # Tenant isolation of uploads, describe/preview reads and DuckDB spill files: bytes held in a company's
    # incomplete uploads, its open uploads, their lifetime, and each company database's spill space.
    upload_quota_bytes: int = Field(
        50 * 1024**3,
        ge=1,
        description=(
            "Bytes a company may hold in incomplete uploads (50 GiB); past it a part or new part "
            "links are 429 `QUOTA`, and a part larger than it is 413."
        ),
    )
    upload_max_open: int = Field(
        100, ge=1, description="Incomplete uploads per company; one more `multipart-initiate` is 429 `QUOTA`."
    )
    upload_expiry_seconds: int = Field(
        86_400,
        ge=1,
        description=(
            "An upload not completed this long after it started expires; the worker deletes its parts."
        ),
    )
    query_max_temp_bytes: int = Field(
        10 * 1000**3,
        ge=0,
        description=(
            "DuckDB spill space per company database, in `<data dir>/duckdb-tmp/c_<companyId>` (mode 0700)."
        ),
    )

    # Destinations (docs/webhooks.md#destinations): a destination's circuit opens after circuit_failures
    # failed attempts in a row, or over circuit_failure_ratio of at least circuit_min_attempts attempts
    # within circuit_window_seconds; while open, one probe every circuit_probe_seconds. A 429 or 503 with
    # Retry-After holds the destination's calls back for that long, at most retry_after_max_seconds.
    circuit_failures: int = Field(
        10,
        ge=1,
        le=100_000,
        description=(
            "A destination's circuit opens after this many failed attempts in a row "
            "([destinations](webhooks.md#destinations))."
        ),
    )
    circuit_failure_ratio: float = Field(
        0.5,
        gt=0,
        le=1,
        description=(
            "... or when more than this share of its attempts failed within the window (with at least"
            " `SVC_CIRCUIT_MIN_ATTEMPTS` attempts)."
        ),
    )
    circuit_min_attempts: int = Field(
        20, ge=1, le=1_000_000, description="Attempts within the window before the failure ratio counts."
    )
    circuit_window_seconds: float = Field(
        60.0, gt=0, le=86_400, description="The window of the failure ratio."
    )
    circuit_probe_seconds: float = Field(
        30.0,
        gt=0,
        le=86_400,
        description="While a circuit is open, one probe attempt this often; it closes when a probe succeeds.",
    )
    retry_after_max_seconds: float = Field(
        300.0,
        ge=0,
        le=86_400,
        description="The longest a destination's `Retry-After` (on a 429 or 503) holds its calls back.",
    )

    # Retention (docs/operations.md): how long each kind of record is kept, unless a company's own values
    # (/svc_poweruser/retention/update) say otherwise; the leader worker's sweep deletes what is past it.
    history_retention_seconds: int = Field(
        30 * 86_400,
        ge=1,
        description=(
            "Webhook execution history (and its request bodies) is kept this long, unless a company's"
            " own value says otherwise ([operations](operations.md#retention))."
        ),
    )
    runs_retention_seconds: int = Field(
        90 * 86_400,
        ge=1,
        description=(
            "Scheduled runs and their dead letters are kept this long, unless a company's own value "
            "says otherwise."
        ),
    )
    jobs_retention_seconds: int = Field(
        30 * 86_400,
        ge=1,
        description=(
            "Finished query, load and append job records are kept this long, unless a company's own "
            "value says otherwise."
        ),
    )
    retention_sweep_seconds: float = Field(
        300.0, gt=0, le=86_400, description="How often the leader worker deletes what is past its retention."
    )
    # How often the leader worker evaluates the alert rules and sends the notifications owed.
    alert_evaluation_seconds: float = Field(
        5.0,
        gt=0,
        le=3_600,
        description=(
            "How often the leader worker evaluates the alert rules and sends the notifications they "
            'owe (docs/webhooks.md, "Alerts").'
        ),
    )
    # A trigger's request body over this size is stored in the object store; the database keeps its key.
    inline_body_bytes: int = Field(
        64 * 1024,
        ge=0,
        le=MAX_BODY_BYTES,
        description=(
            "A trigger's request body over this size is stored in the object store, the database "
            "keeping its key, size and SHA-256."
        ),
    )

    log_level: str = Field("INFO", description="Log level of every process.")
    # The ingress's access log (logger svc.access, at INFO): "all" logs every request; "errors" (default) only
    # 5xx answers and requests slower than access_log_slow_ms, so the trigger's thousands of 202s a second
    # cost no log line each (metrics count every request); "off" none.
    access_log: Literal["all", "errors", "off"] = Field(
        "errors",
        description=(
            "The ingress's access log (logger `svc.access`): `all` logs every request, `errors` only "
            "5xx answers and requests slower than `SVC_ACCESS_LOG_SLOW_MS`, `off` none. Metrics count"
            " every request either way."
        ),
    )
    access_log_slow_ms: int = Field(
        1000, ge=0, description="A request this slow is logged under `SVC_ACCESS_LOG=errors`."
    )
    # Prometheus metrics: their own listener, loopback by default, never the public port. 0 serves none.
    # `svc up` gives its ingress processes this port and the ones after it (ingress-2 on port + 1, ...), and
    # its workers worker_metrics_port and the ones after it.
    metrics_host: str = Field(
        "127.0.0.1", description="Address of each ingress and worker process's Prometheus listener."
    )
    metrics_port: int = Field(
        9464,
        ge=0,
        le=65535,
        description=(
            "Port of the ingress's listener (`svc up`: ingress-2 on port + 1, ...); `0` serves no metrics."
        ),
    )
    worker_metrics_port: int = Field(
        9564,
        ge=0,
        le=65535,
        description=(
            "Port of a worker's listener: delivery attempts, handler latency, queue lag, scheduled runs and "
            "query jobs (`svc up`: worker-2 on port + 1, ...); `0` serves no worker metrics."
        ),
    )
    shutdown_timeout_seconds: float = Field(
        20.0, gt=0, description="How long a child may take to drain on stop before it is killed."
    )
    # `svc up` runs its worker at this niceness: when the machine's cores are all busy, the ingress and the
    # broker (whose answers callers wait on) come first, and the worker's background work yields.
    worker_niceness: int = Field(
        0,
        ge=0,
        le=19,
        description=(
            "The niceness `svc up` starts its worker with (0-19; every thread inherits it). Above 0, "
            "when the machine's cores are all busy the ingress and the broker, whose answers callers "
            "wait on, run first and the worker's background work yields; with idle cores it changes "
            "nothing. The default stays 0: the measurements were not conclusive (performance.md, "
            '"Worker niceness"), and a worker holding the metadata DB\'s write lock while it waits for'
            " a core would also hold up the ingress. Roles started on their own (`svc worker`) run at"
            " the niceness they are given."
        ),
    )
    # Tenant isolation of the script sandbox (validation and transform scripts, JSONPath beyond plain paths,
    # SQL analysis): worker subprocesses shared fairly by the companies of one ingress process.
    sandbox_workers: int = Field(
        6,
        ge=1,
        le=64,
        description=(
            "Sandbox worker subprocesses per ingress process (validation and transform scripts, "
            "JSONPath beyond plain paths, SQL analysis)."
        ),
    )
    sandbox_workers_per_company: int = Field(
        2,
        ge=1,
        le=64,
        description=(
            "Sandbox workers one company may hold at once; past it (or with every worker busy) its "
            "calls wait `SVC_SANDBOX_QUEUE_MS`, then get 429 with `Retry-After`."
        ),
    )
    sandbox_queue_ms: int = Field(
        250,
        ge=0,
        le=10_000,
        description="How long a company's sandbox call waits for a worker before the 429.",
    )
    sandbox_niceness: int = Field(
        19,
        ge=0,
        le=19,
        description=(
            "Niceness of the sandbox workers (0-19). At `19` (the default) they are also put in "
            "Linux's idle scheduling class: tenant code runs only on CPU the service leaves idle, and"
            " any service thread that wakes preempts it at once; on a saturated machine it starves, "
            "and a call starved past its wall-clock backstop answers 429 (retry) rather than failing "
            "as over budget. Below 19 the service only comes first by weight: at `10` a hostile "
            "company's scripts doubled the victim's p99 (performance.md)."
        ),
    )
    # Per-company CPU allowance in the sandbox: the share of the machine's cores one company's sandboxed work
    # may use on average (0 turns it off), and the CPU it may spend at once before the share applies.
    sandbox_company_cpu_share: float = Field(
        0.1,
        ge=0.0,
        le=64.0,
        description=(
            "Per-company CPU allowance of the sandbox, as a share of the machine's cores (per ingress"
            " process): the CPU a company's scripts, JSONPath and SQL analysis actually use is "
            "counted, and a company past its allowance gets 429 with the `Retry-After` its refill "
            "needs. `0` turns it off."
        ),
    )
    sandbox_company_cpu_burst_ms: int = Field(
        1000,
        ge=100,
        le=600_000,
        description="CPU milliseconds a company may spend in the sandbox at once before the share applies.",
    )
    jsonpath_cpu_ms: int = Field(
        250,
        ge=10,
        le=10_000,
        description=(
            "CPU budget of one delivery's JSONPath evaluation (mappings beyond plain paths run in the"
            " sandbox); over it the delivery is `TRANSFORM_FAILED`."
        ),
    )
    # SQL analysis budget: /query and /estimate parse and compile the caller's SQL in a sandbox worker under
    # this CPU budget (ingress/analytics/query_planning.py); false analyses it in the ingress process,
    # unbounded.
    sql_analysis_in_sandbox: bool = Field(
        True,
        description=(
            "`/query` and `/estimate` parse and compile the caller's SQL in a sandbox worker under "
            "the company's share of workers; `false` analyses it in the ingress process, with no "
            "deadline."
        ),
    )
    sql_analysis_cpu_ms: int = Field(
        2000,
        ge=50,
        le=60_000,
        description=(
            "CPU budget of one SQL analysis in a sandbox worker; past it the call answers 400 "
            '`PARSE_ERROR` "The query is too complex to analyse within N ms".'
        ),
    )

    # Process counts of `svc up` (svc/supervisor.py). Unset: 1 each on SQLite (one writer at a time, so more
    # is refused at start) and the machine's core count on PostgreSQL.
    ingress_processes: int | None = Field(
        None,
        ge=1,
        le=256,
        description=(
            "Ingress processes `svc up` runs, all serving one socket it binds. Unset: 1 on SQLite, "
            "one per core on PostgreSQL; more than 1 on SQLite is refused at start (exit 2): SQLite "
            "has one writer at a time."
        ),
    )
    worker_processes: int | None = Field(
        None,
        ge=1,
        le=256,
        description=(
            "Faust workers `svc up` runs, in one consumer group. Unset: 1 on SQLite, one per core on "
            "PostgreSQL; more than 1 on SQLite is refused (exit 2)."
        ),
    )
    # How long `svc up` waits for its ingress processes to answer /healthz at start before it gives up.
    startup_timeout_seconds: float = Field(
        60.0,
        gt=0,
        le=3600,
        description=(
            "How long `svc up` waits at start for its ingress processes to answer `/healthz`; past it"
            " the stack stops with exit 1 instead of restarting in a loop."
        ),
    )

    # Webhook provider signatures (webhookConfig.verificationConfig): the service's public URL as providers
    # call it (scheme, host, optional path prefix), for the providers that sign the URL (Twilio). Unset: the
    # request's own scheme and Host header, which a TLS-terminating proxy in front changes.
    public_base_url: str | None = Field(
        None,
        pattern=r"^https?://[^/?#@\s]+(/[^?#\s]*)?$",
        description=(
            "The service's public URL as webhook providers call it (`https://hooks.example.com`, "
            "optionally with a path prefix), for the provider signatures that cover the URL (Twilio);"
            " the trigger's path and query are appended. Unset: the request's own scheme and `Host` "
            "header, which a TLS-terminating or host-rewriting proxy changes."
        ),
    )

    # Webhook replay (/svc_poweruser/custom-webhooks/replay): replayed executions a company's replays hand to
    # the handler queue per second, all of them together, so a bulk replay never crowds out live traffic;
    # and executions the replay calls of one ingress process record per second, all of them together (a
    # call records every execution before it answers, in the process that answers live triggers).
    replay_rate_per_second: float = Field(
        50.0,
        gt=0,
        le=10_000,
        description=(
            "Replayed executions one company's replays (`/replay`) hand to the handler queue per "
            "second, all its replays together."
        ),
    )
    replay_record_rate_per_second: float = Field(
        250.0,
        gt=0,
        le=100_000,
        description=(
            "Executions the `/replay` calls of one ingress process record a second, all of them "
            "together (a call records every replay before it answers, in small steps between live "
            "triggers): a call of 10,000 answers in about 40 s."
        ),
    )

    # Tracing of webhook deliveries (core/tracing.py, sinks/telemetry.py): the W3C traceparent always travels
    # (record headers, the handler call, the history's traceId); spans are exported only when this OTLP/HTTP
    # traces endpoint is set (for example http://collector:4318/v1/traces). Unset: no exporter is loaded.
    otlp_endpoint: str | None = Field(
        None,
        pattern=r"^https?://[^\s]+$",
        description=(
            "OTLP/HTTP traces endpoint (`http://collector:4318/v1/traces`): the ingress and the "
            "worker export the spans of every webhook delivery (trigger, transform, queue wait, each "
            "handler attempt). Unset: no exporter; the `traceparent` still travels to handlers, "
            "result records and the history's `traceId`."
        ),
    )
    otlp_timeout_seconds: float = Field(
        5.0, gt=0, le=60, description="How long one export of a batch of spans may take."
    )

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
