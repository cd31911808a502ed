"""The ingress app factory. Nothing connects at import; the lifespan owns the DB engine and the producer."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from prometheus_client import CollectorRegistry

from ingress import errors
from ingress.auth_throttle import AuthThrottle
from ingress.inline_queries import InlineQueries
from ingress.metrics_listener import MetricsListener
from ingress.middleware import AccessLog, EdgeMiddleware, HttpMetrics
from ingress.ratelimit import RateLimiter, RowQuota
from ingress.routes import (
    analytics,
    analytics_jobs,
    custom_webhooks,
    health,
    identity,
    intake,
    job_results,
    loads,
    scheduled_backfill,
    scheduled_controls,
    scheduled_events,
    scheduled_preview,
    table_admin,
    table_maintenance,
    webhook_replay,
    webhook_trigger,
)
from ingress.shared_counts import SharedCounts
from ingress.state import Services
from ingress.trigger_fast_path import TriggerFastPath
from ingress.trigger_targets import TriggerTargets
from schemas.settings import Settings
from sinks.db.counters import SharedCounterStore
from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from sinks.iceberg.catalog import catalog_for
from sinks.iceberg.masking import Masker
from sinks.iceberg.read_cache import TableReads
from sinks.kafka import Publisher
from sinks.objectstore import object_store
from sinks.scripting.workers import configure_default_pool
from sinks.telemetry import Spans

log = logging.getLogger(__name__)


def create_app(settings: Settings) -> FastAPI:
    registry = CollectorRegistry()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_default_pool(
            max_workers=settings.sandbox_workers,
            per_tenant=settings.sandbox_workers_per_company,
            queue_seconds=settings.sandbox_queue_ms / 1000,
            niceness=settings.sandbox_niceness,
            cpu_share=settings.sandbox_company_cpu_share,
            cpu_burst_ms=settings.sandbox_company_cpu_burst_ms,
        )
        engine = make_engine(settings.resolved_database_url)
        sessions = make_sessions(engine)
        publisher = Publisher(settings)
        await publisher.start()
        committer = GroupCommitter(sessions, name="ingress-commit", threads=settings.resolved_db_committers)
        committer.start()
        catalog = catalog_for(settings)
        counts = SharedCounts(SharedCounterStore(sessions), flush_seconds=settings.rate_limit_flush_ms / 1000)
        counts.start()
        share = settings.rate_limit_local_share
        per_key_failures = settings.auth_failures_per_minute
        store, reads = object_store(settings), TableReads(catalog)
        app.state.services = Services(
            settings=settings,
            engine=engine,
            sessions=sessions,
            publisher=publisher,
            limiter=RateLimiter(
                settings.rate_limit_per_minute, settings.rate_limit_per_day, counts, local_share=share
            ),
            webhook_limiter=RateLimiter(
                settings.webhook_rate_limit_per_minute,
                settings.webhook_rate_limit_per_day,
                counts,
                scope="trigger",
                local_share=share,
            ),
            committer=committer,
            append_quota=RowQuota(settings.append_rows_per_minute, counts, local_share=share),
            catalog=catalog,
            masker=Masker(settings.secret_key),
            registry=registry,
            store=store,
            reads=reads,
            trigger_targets=TriggerTargets(settings.trigger_cache_seconds),
            counts=counts,
            auth_throttle=AuthThrottle(
                counts,
                per_address=settings.auth_failures_per_address_per_minute or per_key_failures,
                per_key=per_key_failures,
                local_share=share,
            ),
            inline=InlineQueries(settings, reads, store, catalog),
            spans=Spans(
                settings.otlp_endpoint, service="svc-ingress", timeout_seconds=settings.otlp_timeout_seconds
            ),
        )
        app.state.services.inline.count_in(registry)
        # Everything loaded so far (modules, the app, its routes) lives as long as the process: out of the
        # collector's sight, full collections no longer walk it on every request burst.
        gc.collect()
        gc.freeze()
        metrics = MetricsListener(registry, settings.metrics_host, settings.metrics_port)
        metrics.start()
        app.state.metrics_port = metrics.port
        log.info("ingress ready", extra={"host": settings.host, "port": settings.port})
        try:
            yield
        finally:
            metrics.stop()
            committer.stop()
            counts.stop()
            app.state.services.inline.close()
            await publisher.stop()
            app.state.services.spans.shutdown()
            engine.dispose()
            log.info("ingress stopped")

    app = FastAPI(
        title="svc",
        summary="Custom webhooks, scheduled events and analytics tables",
        version="0.1.0",
        lifespan=lifespan,
        # FastAPI's own OpenTelemetry hooks looked up the global providers on every request (about 5% of a
        # trigger's CPU) to find them unconfigured; the delivery spans are svc's own (sinks/telemetry.py).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    errors.install(app)
    app.include_router(health.router)
    app.include_router(identity.router)
    app.include_router(custom_webhooks.router)
    app.include_router(webhook_replay.router)
    app.include_router(webhook_trigger.router)
    app.include_router(table_admin.router)
    app.include_router(table_maintenance.router)
    app.include_router(analytics.router)
    app.include_router(analytics_jobs.router)
    app.include_router(job_results.router)
    app.include_router(loads.router)
    app.include_router(scheduled_events.router)
    app.include_router(scheduled_preview.router)
    app.include_router(scheduled_controls.router)
    app.include_router(scheduled_backfill.router)
    app.include_router(intake.router)
    app.add_middleware(TriggerFastPath, services=lambda: app.state.services)
    app.add_middleware(errors.DatabaseOutage)  # around the fast path, which FastAPI's handlers never see
    app.add_middleware(
        EdgeMiddleware,
        max_body_bytes=settings.max_request_bytes,
        metrics=HttpMetrics(registry),
        own_limit_prefixes=(intake.PART_PATH,),
        access_log=AccessLog(settings.access_log, settings.access_log_slow_ms),
    )
    return app
