"""The agents each area registers on the worker's Faust app. An area is ``register(app, settings)``."""

from __future__ import annotations

from streams import alerts, retention
from streams.analytics import jobs, maintenance, tables, uploads
from streams.app import Area
from streams.scheduled import scheduler
from streams.webhooks import deliveries

AREAS: list[Area] = [
    deliveries.register,
    tables.register,
    scheduler.register,
    jobs.register,
    uploads.register,
    maintenance.register,
    retention.register,
    alerts.register,
]
