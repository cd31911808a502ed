"""The ingress app factory. Nothing connects at import; the lifespan owns the DB engine and the producer."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from prometheus_client import CollectorRegistry

from ingress import alert_rules, alerts, errors, health, identity, retention
from ingress.analytics import (
    calls,
    intake,
    job_results,
    jobs,
    loads,
    table_admin,
    table_listing,
    table_maintenance,
)
from ingress.analytics.inline_queries import InlineQueries
from ingress.auth_throttle import AuthThrottle
from ingress.console import routes as console
from ingress.middleware import AccessLog, EdgeMiddleware, HttpMetrics
from ingress.ratelimit import RateLimiter, RowQuota
from ingress.scheduled import backfill, controls, preview
from ingress.scheduled import events as scheduled_events
from ingress.shared_counts import SharedCounts
from ingress.webhooks import destinations, manage, replay, stats, transform_trial
from ingress.webhooks import trigger as webhook_trigger
from ingress.webhooks.destination_metrics import DestinationGauges
from ingress.webhooks.trigger_clients import TriggerClients
from ingress.webhooks.trigger_fast_path import TriggerFastPath
from ingress.webhooks.trigger_targets import TriggerTargets
from schemas.settings import Settings
from sinks.db.counters import SharedCounterStore
from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from sinks.iceberg.catalog import catalog_for
from sinks.iceberg.masking import Masker
from sinks.iceberg.read_cache import TableReads
from sinks.kafka import Publisher
from sinks.metrics_listener import MetricsListener
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
        masker = Masker(settings.secret_key)
        auth_throttle = AuthThrottle(
            counts,
            per_address=settings.auth_failures_per_address_per_minute or per_key_failures,
            per_key=per_key_failures,
            local_share=share,
        )
        inline = InlineQueries(settings, reads, store, catalog)
        inline.count_in(registry)
        gauges = DestinationGauges(sessions)
        registry.register(gauges)
        spans = Spans(
            settings.otlp_endpoint, service="svc-ingress", timeout_seconds=settings.otlp_timeout_seconds
        )
        trigger_targets = TriggerTargets(settings.trigger_cache_seconds)
        # Each client on its own: the routes declare the ones they use (ingress/deps.py and the rooms' deps).
        state = app.state
        state.settings, state.engine, state.sessions = settings, engine, sessions
        state.publisher, state.committer, state.catalog = publisher, committer, catalog
        state.masker, state.store, state.reads, state.registry = masker, store, reads, registry
        state.limiter = RateLimiter(
            settings.rate_limit_per_minute, settings.rate_limit_per_day, counts, local_share=share
        )
        state.append_quota = RowQuota(settings.append_rows_per_minute, counts, local_share=share)
        state.auth_throttle, state.trigger_targets, state.inline = auth_throttle, trigger_targets, inline
        state.trigger_clients = TriggerClients(
            settings=settings,
            engine=engine,
            sessions=sessions,
            publisher=publisher,
            webhook_limiter=RateLimiter(
                settings.webhook_rate_limit_per_minute,
                settings.webhook_rate_limit_per_day,
                counts,
                scope="trigger",
                local_share=share,
            ),
            committer=committer,
            masker=masker,
            trigger_targets=trigger_targets,
            auth_throttle=auth_throttle,
            store=store,
            spans=spans,
        )
        # Everything loaded so far (modules, the app, its routes) lives as long as the process: out of the
        # collector's sight, full collections do not walk it on every request burst.
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
            registry.unregister(gauges)
            committer.stop()
            counts.stop()
            inline.close()
            await publisher.stop()
            spans.shutdown()
            engine.dispose()
            log.info("ingress stopped")

    app = FastAPI(
        title="svc",
        summary="Custom webhooks, scheduled events and analytics tables",
        version="0.1.0",
        lifespan=lifespan,
        # FastAPI's own OpenTelemetry hooks look up the global providers on every request to find them
        # unconfigured; the delivery spans are svc's own (sinks/telemetry.py).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    errors.install(app)
    app.include_router(health.router)
    app.include_router(identity.router)
    app.include_router(retention.router)
    app.include_router(alert_rules.router)
    app.include_router(alerts.router)
    app.include_router(manage.router)
    app.include_router(replay.router)
    app.include_router(transform_trial.router)
    app.include_router(destinations.router)
    app.include_router(stats.router)
    app.include_router(webhook_trigger.router)
    app.include_router(table_admin.router)
    app.include_router(table_maintenance.router)
    app.include_router(table_listing.router)
    app.include_router(calls.router)
    app.include_router(jobs.router)
    app.include_router(job_results.router)
    app.include_router(loads.router)
    app.include_router(scheduled_events.router)
    app.include_router(preview.router)
    app.include_router(controls.router)
    app.include_router(backfill.router)
    app.include_router(intake.router)
    if settings.console:
        console.install(app)
    app.add_middleware(TriggerFastPath, clients=lambda: app.state.trigger_clients)
    app.add_middleware(errors.DatabaseOutage)  # around the fast path, which FastAPI's handlers never see
    app.add_middleware(
        EdgeMiddleware,
        max_body_bytes=settings.max_request_bytes,
        metrics=HttpMetrics(registry),
        own_limit_prefixes=(intake.PART_PATH,),
        access_log=AccessLog(settings.access_log, settings.access_log_slow_ms),
    )
    return app
