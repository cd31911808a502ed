"""The console's routes and its static assets, mounted by the app factory when ``SVC_CONSOLE`` is on."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from ingress.console import alerts, analytics, schedules, signing, webhooks


def install(app: FastAPI) -> None:
    for router in (signing.router, webhooks.router, schedules.router, analytics.router, alerts.router):
        app.include_router(router)
    app.mount("/console/static", StaticFiles(packages=[("ingress.console", "static")]), name="console-static")
