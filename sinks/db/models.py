"""Metadata DB tables. Every company-owned row carries ``company_id`` and every query filters on it."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# The WHERE of the partial indexes of failures, written as the queries that use them write it: SQLite uses a
# partial index only for a query whose WHERE has the same term (sinks/db/alerts/findings.py).
FAILED_ONLY = "status = 'FAILED'"
RUN_FAILED_ONLY = "status IN ('FAILED', 'MISSED')"


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores naive UTC (SQLite has no zones) and always hands back an aware UTC datetime."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime refused: use timezone-aware UTC")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime from the database, got {type(value).__name__}")
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Company(Base):
    __tablename__ = "companies"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class User(Base):
    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("company_id", "email", name="uq_users_company_email"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(320))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    is_primary_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ApiKey(Base):
    """Client API keys and poweruser keys; only the digest is stored."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    secret_digest: Mapped[str] = mapped_column(String(64), unique=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class HandlerResource(Base):
    """An agent, tool or manager of a company and the endpoint that invokes it."""

    __tablename__ = "handler_resources"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(200))
    endpoint: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # The destination's limits across every worker: calls in flight at once, and calls started per second
    # (NULL: no rate limit). A delivery over them waits in the database, burning no attempt.
    max_concurrency: Mapped[int] = mapped_column(Integer, server_default="16")
    max_per_second: Mapped[float | None] = mapped_column(Float, nullable=True)


class DestinationState(Base):
    """What the workers know of one destination (a handler resource) beyond its limits: its circuit, the
    failures that open it, a Retry-After it asked for, and the tokens of its rate limit. Written under the
    handler resource's row lock (PostgreSQL) or the write lock (SQLite), so every worker sees one state."""

    __tablename__ = "destination_states"

    resource_id: Mapped[str] = mapped_column(
        ForeignKey("handler_resources.id", ondelete="CASCADE"), primary_key=True
    )
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    # CLOSED, OPEN or HALF_OPEN, since when; while OPEN one probe may start at probe_at.
    state: Mapped[str] = mapped_column(String(16), default="CLOSED")
    since: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    probe_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    window_attempts: Mapped[int] = mapped_column(Integer, default=0)
    window_failures: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_error_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # No call starts before this time (the destination answered 429 or 503 with Retry-After).
    blocked_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The rate limit's bucket: tokens at tokens_at, refilled at max_per_second up to one second's worth.
    tokens: Mapped[float] = mapped_column(Float, default=0.0)
    tokens_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ResourceVersion(Base):
    """One numbered version of a handler resource and the endpoint it runs. Configs pick a version by state
    and number (core/versions.py); ``HandlerResource.endpoint`` is only the registration's first endpoint.
    Tenancy goes through the resource: every read joins ``handler_resources`` on its company."""

    __tablename__ = "resource_versions"
    __table_args__ = (
        CheckConstraint("version_number >= 1", name="version_number_positive"),
        CheckConstraint("state IN ('PUBLISHED', 'DRAFT', 'ARCHIVED')", name="state_known"),
    )

    resource_id: Mapped[str] = mapped_column(
        ForeignKey("handler_resources.id", ondelete="CASCADE"), primary_key=True
    )
    version_number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    state: Mapped[str] = mapped_column(String(16))
    endpoint: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ResourceGrant(Base):
    """A user's access level on one resource of their company."""

    __tablename__ = "resource_grants"
    __table_args__ = (Index("ix_resource_grants_company_resource", "company_id", "resource_id"),)

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    resource_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    level: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Webhook(Base):
    __tablename__ = "webhooks"
    __table_args__ = (Index("ix_webhooks_company_owner", "company_id", "owner_id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    config_json: Mapped[str] = mapped_column(Text)
    is_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    sharing_level: Mapped[str] = mapped_column(String(20), default="PRIVATE")
    company_permission_level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class WebhookKey(Base):
    """The one dedicated key of a webhook; a refresh replaces the row, so the old key id stops existing."""

    __tablename__ = "webhook_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), unique=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    secret_digest: Mapped[str] = mapped_column(String(64))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class WebhookShare(Base):
    __tablename__ = "webhook_shares"
    __table_args__ = (Index("ix_webhook_shares_company_user", "company_id", "user_id"),)

    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    access_level: Mapped[str] = mapped_column(String(16))


class WebhookPayload(Base):
    """A delivery's raw request, stored once and shared by every attempt of the delivery."""

    __tablename__ = "webhook_payloads"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), index=True)
    request_payload: Mapped[str] = mapped_column(Text)
    request_headers: Mapped[str] = mapped_column(Text)
    request_query_params: Mapped[str | None] = mapped_column(Text, nullable=True)
    # A body over SVC_INLINE_BODY_BYTES lives in the object store under ``body_key`` (``request_payload`` is
    # then empty); its size and SHA-256 let a reader tell a damaged or missing object from the body.
    body_key: Mapped[str | None] = mapped_column(String(300), nullable=True)
    body_bytes: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    body_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)


class CompanyRetention(Base):
    """A company's own retention, in seconds, per kind of record; NULL: the service's setting."""

    __tablename__ = "company_retention"

    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), primary_key=True)
    history_seconds: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    runs_seconds: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    jobs_seconds: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class WebhookExecution(Base):
    """One attempt of one delivery (history entry). Listing reads only the indexed columns plus one page."""

    __tablename__ = "webhook_executions"
    __table_args__ = (
        Index("ix_webhook_executions_history", "company_id", "webhook_id", "queued_at", "id"),
        # The handler's duration last: the delivery stats count a window from this index alone (no row
        # looked up), and a settle sets it with the status, so the entry it rewrites anyway carries it.
        Index(
            "ix_webhook_executions_status_history",
            "company_id",
            "webhook_id",
            "status",
            "queued_at",
            "id",
            "duration_ms",
        ),
        Index("ix_webhook_executions_execution", "execution_id", "attempt_number"),
        Index("ix_webhook_executions_pending", "status", "dispatched_at", "available_at"),
        # Only the waiting entries are in it, so the trigger's inserts never touch it.
        Index(
            "ix_webhook_executions_waiting",
            "waiting_for",
            "queued_at",
            sqlite_where=text("waiting_for IS NOT NULL"),
            postgresql_where=text("waiting_for IS NOT NULL"),
        ),
        # The failed attempts by the time they ended, for the alerts' evaluator (sinks/db/alerts/findings.py):
        # only FAILED entries are in it, so a delivery that succeeds never touches it.
        Index(
            "ix_webhook_executions_failed",
            "company_id",
            "ended_at",
            "webhook_id",
            sqlite_where=text(FAILED_ONLY),
            postgresql_where=text(FAILED_ONLY),
        ),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    execution_id: Mapped[str] = mapped_column(String(32))
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"))
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    payload_id: Mapped[str] = mapped_column(ForeignKey("webhook_payloads.id", ondelete="CASCADE"), index=True)
    attempt_number: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(20))
    resource_type: Mapped[str | None] = mapped_column(String(16), nullable=True)
    resource_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    duration_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    webhook_name: Mapped[str] = mapped_column(String(200))
    http_method: Mapped[str] = mapped_column(String(10))
    source_ip: Mapped[str | None] = mapped_column(String(64), nullable=True)
    transform_type: Mapped[str] = mapped_column(String(16))
    transformed_variables: Mapped[str | None] = mapped_column(Text, nullable=True)
    transform_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    resource_request_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    resource_response_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    # When this attempt may run (a retry waits here, in the DB, not in a partition) and when a record for it
    # was last handed to Kafka (NULL: not yet; the worker's sweeper publishes it once it is due).
    available_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    dispatched_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # While PROCESSING: the worker acting on this attempt renews this; the reconciler fails the attempt as
    # lost only once it has passed (core/leases.py). NULL (claimed before leases): the old timeout rule.
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The delivery's W3C traceparent as the ingress span wrote it (core/tracing.py); every attempt of the
    # delivery keeps it. NULL for deliveries from before tracing.
    trace_parent: Mapped[str | None] = mapped_column(String(55), nullable=True)
    # QUEUED and waiting for its destination (the resource id) to take another call: not handed to Kafka
    # again until a slot frees; NULL otherwise. ``waiting_since``: when it first waited; ``waited_ms``: how
    # long it waited before its call started (the history shows it apart from the attempt's own time).
    waiting_for: Mapped[str | None] = mapped_column(String(100), nullable=True)
    waiting_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    waited_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)


class WebhookExecutionCount(Base):
    """History entries per webhook and status, kept in the same transaction as every entry change, so the
    history's totalElements never needs a COUNT over millions of rows."""

    __tablename__ = "webhook_execution_counts"

    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(20), primary_key=True)
    entries: Mapped[int] = mapped_column(Integer, default=0)


class WebhookReplay(Base):
    """A replayed execution and the execution it replays (the history's ``replayOf``): one row per replay,
    shared by all its attempts, so the delivery path's own rows need no new column."""

    __tablename__ = "webhook_replays"

    execution_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), index=True)
    original_execution_id: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ReplayPacer(Base):
    """A company's next free replay slot: every replay of the company, from any ingress process, reserves
    its slots here in the transaction that records it, so all its replays together keep to one rate."""

    __tablename__ = "replay_pacers"

    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), primary_key=True)
    next_slot_at: Mapped[datetime] = mapped_column(UTCDateTime())


class WebhookDedup(Base):
    """A trigger delivery's deduplication key, claimed by the first delivery that carried it. The primary key
    is the unique index the claim relies on: it is inserted in the transaction that records that delivery's
    history entry, so two concurrent deliveries with one key cannot both be recorded. A row past
    ``expires_at`` no longer counts; the worker's sweep deletes it (sinks/db/webhooks/dedup.py)."""

    __tablename__ = "webhook_dedup"

    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), primary_key=True)
    dedup_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    execution_id: Mapped[str] = mapped_column(String(32))
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class AnalyticsTable(Base):
    """A table's definition and semantic layer; its rows live in Iceberg (``c_<company>.t_<id>``)."""

    __tablename__ = "analytics_tables"
    __table_args__ = (
        UniqueConstraint("company_id", "sql_name", name="uq_analytics_tables_company_sql_name"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    sql_name: Mapped[str] = mapped_column(String(63))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    grain: Mapped[str | None] = mapped_column(Text, nullable=True)
    columns_json: Mapped[str] = mapped_column(Text)
    partition_spec_json: Mapped[str] = mapped_column(Text, default="[]")
    semantics_json: Mapped[str] = mapped_column(Text, default="{}")
    semantics_version: Mapped[int] = mapped_column(Integer, default=1)
    created_by: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_load_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class TableGrant(Base):
    """READ or WRITE on a table for one user, with row- and field-level security."""

    __tablename__ = "table_grants"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("analytics_tables.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    level: Mapped[str] = mapped_column(String(8))
    row_filter: Mapped[str | None] = mapped_column(Text, nullable=True)
    hidden_columns_json: Mapped[str] = mapped_column(Text, default="[]")
    can_reveal: Mapped[bool] = mapped_column(Boolean, default=False)


class TableWrite(Base):
    """One accepted write (an append's rows, or a svcdb operation), durable before the caller's answer.

    The Kafka record carries only this id; the table's writer commits PENDING writes to Iceberg with their ids
    in the snapshot summary (exactly once), then marks them COMMITTED. An append's rows are in
    ``payload_rows`` (validated, masked columns encrypted, as an Arrow IPC stream); ``payload_json`` holds a
    svcdb operation, or the rows as sent for appends accepted before ``payload_rows`` existed."""

    __tablename__ = "table_writes"
    __table_args__ = (
        Index("ix_table_writes_pending", "status", "table_id", "created_at"),
        # The writes that ended FAILED, by when (``committed_at`` is the end of a write either way).
        Index(
            "ix_table_writes_failed",
            "company_id",
            "committed_at",
            sqlite_where=text(FAILED_ONLY),
            postgresql_where=text(FAILED_ONLY),
        ),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("analytics_tables.id", ondelete="CASCADE"))
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    payload_json: Mapped[str] = mapped_column(Text)
    payload_rows: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    row_count: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="PENDING")
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    dispatched_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    committed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_by: Mapped[str | None] = mapped_column(String(32), nullable=True)


class TableMaintenance(Base):
    """The worker's automatic maintenance of one table (streams/analytics/maintenance.py): when it was last
    looked at, compacted and expired, and the lease of the worker maintaining it now. A worker maintains a
    table only while it holds an unexpired lease (``lease_holder`` says whose), so two workers never do at
    once."""

    __tablename__ = "table_maintenance"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("analytics_tables.id", ondelete="CASCADE"), primary_key=True
    )
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    lease_holder: Mapped[str | None] = mapped_column(String(64), nullable=True)
    last_checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True, index=True)
    last_compacted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_expired_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The last automatic maintenance that failed, and why (what a TABLE_FAILURE alert counts).
    failed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)


class ScheduledEvent(Base):
    """A scheduled event of a company; ``next_fire_at`` NULL means it has nothing left to fire."""

    __tablename__ = "scheduled_events"
    __table_args__ = (Index("ix_scheduled_events_due", "next_fire_at", "enabled", "deleted_at"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    spec_json: Mapped[str] = mapped_column(Text)
    action_type: Mapped[str] = mapped_column(String(16))
    config_json: Mapped[str] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    # EVERY schedules count from here: creation, or the last change of the schedule.
    anchor_at: Mapped[datetime] = mapped_column(UTCDateTime())
    next_fire_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_fired_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The window fires may fall in (core/schedules/window.py); a pause is a lower bound that ends by itself.
    start_date: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    end_date: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    paused_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # NONE or DELETE: DELETE soft-deletes the event once it has no fire left and its last run ended.
    action_after_completion: Mapped[str] = mapped_column(String(8), default="NONE")
    # retryPolicy and deadLetterConfig (sinks/db/scheduled/retries.py); the defaults are the behaviour of
    # events made before retries existed: no retry, no dead letter.
    max_retry_attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_event_age_seconds: Mapped[int] = mapped_column(Integer, default=86400)
    dead_letter_enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    # catchupWindowSeconds (core/schedules/catchup.py): a fire missed by more than this is recorded MISSED.
    catchup_window_seconds: Mapped[int] = mapped_column(Integer, default=3600)
    # overlapPolicy SKIP, ALLOW or BUFFER_ONE (sinks/db/scheduled/overlap.py).
    overlap_policy: Mapped[str] = mapped_column(String(12), default="SKIP")
    # flexibleTimeWindow's maximumWindowInMinutes; NULL: mode OFF (core/schedules/window.py).
    flex_window_minutes: Mapped[int | None] = mapped_column(Integer, nullable=True)


class ScheduledEventRun(Base):
    """One fire of one event at one scheduled time; the unique pair makes a second claim of it impossible."""

    __tablename__ = "scheduled_event_runs"
    __table_args__ = (
        UniqueConstraint("event_id", "scheduled_for", name="uq_scheduled_event_runs_event_time"),
        Index("ix_scheduled_event_runs_history", "company_id", "event_id", "scheduled_for"),
        Index("ix_scheduled_event_runs_pending", "status", "dispatched_at"),
        Index("ix_scheduled_event_runs_retry", "retry_at"),
        Index("ix_scheduled_event_runs_dead_letter", "dead_letter_at"),
        Index("ix_scheduled_event_runs_buffered", "buffered"),
        # The runs that ended FAILED or MISSED, by when, for the alerts' evaluator.
        Index(
            "ix_scheduled_event_runs_failed",
            "company_id",
            "ended_at",
            sqlite_where=text(RUN_FAILED_ONLY),
            postgresql_where=text(RUN_FAILED_ONLY),
        ),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    event_id: Mapped[str] = mapped_column(ForeignKey("scheduled_events.id", ondelete="CASCADE"))
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    scheduled_for: Mapped[datetime] = mapped_column(UTCDateTime())
    status: Mapped[str] = mapped_column(String(16))
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    action_type: Mapped[str] = mapped_column(String(16))
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime())
    dispatched_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    duration_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    # While RUNNING: the worker acting on this run renews this; the reconciler queues another attempt only
    # once it has passed (core/leases.py). NULL (claimed before leases): the old timeout rule.
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # A /run-now run: not a fire of the schedule, so a pause, a disabled event and actionAfterCompletion
    # leave it alone.
    manual: Mapped[bool] = mapped_column(Boolean, default=False)
    # A QUEUED run waiting for its retry: not claimed before this time; its tick is sent (and dispatched_at
    # set) once it is near.
    retry_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The attempts before the current one, as a JSON list of their outcomes (shown by /runs).
    attempts_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # Set with the FAILED state when the event's deadLetterConfig is enabled: the dead-letter record is still
    # owed from this time on (a publisher's claim moves it forward); NULL once published.
    dead_letter_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # QUEUED, held back by overlapPolicy BUFFER_ONE until nothing else of its event is in progress.
    buffered: Mapped[bool] = mapped_column(Boolean, default=False)
    # A /backfill run: a past fire time run on request; overlapPolicy, a pause and actionAfterCompletion leave
    # it alone, as they leave a /run-now run.
    backfill: Mapped[bool] = mapped_column(Boolean, default=False)


class Job(Base):
    """A query, load or append job of a company. ``plan_json`` holds what the worker needs to run it (for a
    query: the compiled DuckDB SQL and the caller's views); the result lives in the object store."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_table_created", "company_id", "table_id", "created_at"),
        Index("ix_jobs_state_created", "state", "created_at"),
        Index("ix_jobs_company_created", "company_id", "created_at"),
        # One job per requestId of a user: concurrent duplicates race on this index, not on a read. A job
        # older than the window gives its requestId up (set NULL; NULLs never collide) to a new one.
        Index("ux_jobs_request_id", "company_id", "created_by", "request_id", unique=True),
        # The result cache's lookup (ingress/analytics/result_cache.py): a company's jobs by result-cache key.
        Index("ix_jobs_cache_key", "company_id", "cache_key"),
        # The sweep of result files no job names (sinks/result_orphans.py) looks listed keys up.
        Index("ix_jobs_result_key", "result_key"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    table_id: Mapped[str] = mapped_column(ForeignKey("analytics_tables.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    state: Mapped[str] = mapped_column(String(16))
    tables_json: Mapped[str] = mapped_column(Text, default="[]")
    created_by: Mapped[str] = mapped_column(String(32))
    sql: Mapped[str | None] = mapped_column(Text, nullable=True)
    plan_json: Mapped[str] = mapped_column(Text, default="{}")
    result_key: Mapped[str | None] = mapped_column(String(300), nullable=True)
    result_row_count: Mapped[int | None] = mapped_column(Integer, nullable=True)
    truncated: Mapped[bool] = mapped_column(Boolean, default=False)
    result_columns_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    bytes_scanned: Mapped[int] = mapped_column(BigInteger, default=0)
    elapsed_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_hint: Mapped[str | None] = mapped_column(Text, nullable=True)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    rows_loaded: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    rows_rejected: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    rejected_sample_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    notes_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The runner's effective policy per table read (core.policy JSON), stored when a query is planned:
    # its output is served only to readers whose current policy is at least as broad. NULL: a load, or a
    # query planned before policies were stored (readable by its runner and company admins only).
    policy_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The query's requestId (core.request_ids) and the digest of the fields that shaped it; NULL without one.
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    request_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The query's result-cache key (core/sql/cache_key.py): NULL for a query that may not be cached, or whose
    # worker read other snapshots than its plan named. ``cached_from``: on a job answered from the cache,
    # the job that computed the result it shares (its result file, and its expiry).
    cache_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    cached_from: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class Upload(Base):
    """A multipart upload of a company's file into the object store: UPLOADING → COMPLETING → COMPLETED,
    or UPLOADING → ABORTED (by its company) or EXPIRED (by the worker's sweep).

    ``id`` is the uploadId users see; ``store_upload_id`` is the object store's own id for the same upload.
    ``held_bytes`` (parts stored, as last measured) and ``reserved_bytes`` (parts being received) count
    against the company's upload quota while the upload is incomplete. ``cleaned_at`` is set once the parts
    of an ABORTED or EXPIRED upload are gone from the store; until then the sweep tries again."""

    __tablename__ = "uploads"
    __table_args__ = (
        Index("ix_uploads_company_uri", "company_id", "s3_uri"),
        Index("ix_uploads_state_created", "state", "created_at"),
        Index("ix_uploads_company_state", "company_id", "state"),
        Index("ix_uploads_state_cleaned", "state", "cleaned_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    created_by: Mapped[str] = mapped_column(String(32))
    file_name: Mapped[str] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String(512))
    s3_key: Mapped[str] = mapped_column(String(768))
    s3_uri: Mapped[str] = mapped_column(String(832))
    store_upload_id: Mapped[str] = mapped_column(String(1024))
    state: Mapped[str] = mapped_column(String(16), default="UPLOADING")
    size_bytes: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    part_count: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    held_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    reserved_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    cleaned_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ReadCharge(Base):
    """What counts against a company's daily scan allowance on one UTC day: the bytes of table data its
    describe (with statistics) and preview calls read, and the bytes its query jobs created that day are
    estimated to scan (``bytes_scanned``, counted as each job is recorded:
    ``sinks/db/analytics/query_scans.py``)."""

    __tablename__ = "read_charges"

    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    bytes_read: Mapped[int] = mapped_column(BigInteger, default=0)
    query_bytes: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class RateCounter(Base):
    """A rate-limit or failed-authentication count shared by the ingress processes (sinks/db/counters.py).

    ``name`` says what is counted (``<scope>:<period>:<key>``); a row lives for one window and is deleted
    some time after ``window_end`` (Unix seconds)."""

    __tablename__ = "rate_counters"
    __table_args__ = (Index("ix_rate_counters_window_end", "window_end"),)

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    window_end: Mapped[int] = mapped_column(BigInteger)
    hits: Mapped[int] = mapped_column(BigInteger, default=0)


class AlertRule(Base):
    """A company's alert rule (schemas/alerts.py): one condition, its subject (NULL: any of the company's),
    when its alerts resolve by themselves, the handler notified, and the signing secret sealed with the
    service's key. ``checked_until``: the evaluator has counted every failure that ended up to here."""

    __tablename__ = "alert_rules"
    __table_args__ = (Index("ix_alert_rules_enabled", "enabled", "id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    condition_type: Mapped[str] = mapped_column(String(32))
    condition_json: Mapped[str] = mapped_column(Text)
    subject_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    resolve_after_seconds: Mapped[int] = mapped_column(Integer)
    notify_resource_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    sealed_secret: Mapped[str] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    checked_until: Mapped[datetime] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Alert(Base):
    """One alert of a rule on one subject: OPEN → ACKNOWLEDGED → RESOLVED. The partial unique index allows
    one unresolved alert per rule and subject, so two evaluations can never open two.

    ``counted_until``: failures that ended up to here are counted in it; ``clear_since``: the condition has
    been clear since then (the last failure counted, or when a circuit was seen closed; NULL: failing)."""

    __tablename__ = "alerts"
    __table_args__ = (
        Index(
            "ux_alerts_unresolved",
            "rule_id",
            "subject_id",
            unique=True,
            sqlite_where=text("state <> 'RESOLVED'"),
            postgresql_where=text("state <> 'RESOLVED'"),
        ),
        Index("ix_alerts_rule_subject", "rule_id", "subject_id", "opened_at"),
        Index("ix_alerts_company_opened", "company_id", "opened_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"))
    rule_id: Mapped[str] = mapped_column(ForeignKey("alert_rules.id", ondelete="CASCADE"))
    condition_type: Mapped[str] = mapped_column(String(32))
    subject_kind: Mapped[str] = mapped_column(String(16))
    subject_id: Mapped[str] = mapped_column(String(100))
    state: Mapped[str] = mapped_column(String(16))
    item_count: Mapped[int] = mapped_column(BigInteger, default=0)
    first_item_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_item_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    counted_until: Mapped[datetime] = mapped_column(UTCDateTime())
    clear_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime())
    acknowledged_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    resolved_by: Mapped[str | None] = mapped_column(String(8), nullable=True)


class AlertItem(Base):
    """One item an alert concerns (an execution, a run, a write, a destination), at most
    ``schemas.alerts.MAX_ITEMS`` per alert; the primary key lists each once."""

    __tablename__ = "alert_items"

    alert_id: Mapped[str] = mapped_column(ForeignKey("alerts.id", ondelete="CASCADE"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    detail: Mapped[str | None] = mapped_column(Text, nullable=True)


class AlertNotification(Base):
    """A notification owed for one alert and state, written with the state change: the unique pair makes a
    second one impossible. The leader sends it (PENDING → SENT, or FAILED after its last try); ``body`` is
    the JSON as fixed at the change, signed afresh at every try."""

    __tablename__ = "alert_notifications"
    __table_args__ = (
        UniqueConstraint("alert_id", "alert_state", name="uq_alert_notifications_alert_state"),
        Index("ix_alert_notifications_due", "status", "next_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    alert_id: Mapped[str] = mapped_column(ForeignKey("alerts.id", ondelete="CASCADE"))
    rule_id: Mapped[str] = mapped_column(ForeignKey("alert_rules.id", ondelete="CASCADE"), index=True)
    alert_state: Mapped[str] = mapped_column(String(16))
    resource_id: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="PENDING")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ConsoleSession(Base):
    """A signed-in browser of the console (ingress/console/). ``id`` is the SHA-256 of the cookie's token,
    never the token; the raw poweruser key is not kept: ``key_id`` is re-checked on every request, so a
    disabled key ends its sessions at once. Shared by every ingress process through this table."""

    __tablename__ = "console_sessions"
    __table_args__ = (Index("ix_console_sessions_expires_at", "expires_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("companies.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    key_id: Mapped[str] = mapped_column(ForeignKey("api_keys.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(
        UTCDateTime(), default=utcnow, server_default=text("CURRENT_TIMESTAMP")
    )
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
