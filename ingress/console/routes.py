"""The console's routes and its static assets, mounted by the app factory when ``SVC_CONSOLE`` is on."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from ingress.console import alert_rules, alerts, analytics, schedules, signing, webhooks


def install(app: FastAPI) -> None:
    routers = (signing, webhooks, schedules, analytics, alert_rules, alerts)  # alert_rules before alerts
    for router in (module.router for module in routers):
        app.include_router(router)
    app.mount("/console/static", StaticFiles(packages=[("ingress.console", "static")]), name="console-static")
