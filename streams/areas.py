"""The agents each area registers on the worker's Faust app. An area is ``register(app, settings)``."""

from __future__ import annotations

from streams import analytics, deliveries, maintenance, scheduler, tables, uploads
from streams.app import Area

AREAS: list[Area] = [
    deliveries.register,
    tables.register,
    scheduler.register,
    analytics.register,
    uploads.register,
    maintenance.register,
]
