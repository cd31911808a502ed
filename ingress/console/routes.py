"""The console's routes and its static assets, mounted by the app factory when ``SVC_CONSOLE`` is on."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from ingress.console import alert_rules, alerts, analytics, schedules, sharing, signing, webhooks


def install(app: FastAPI) -> None:
    # alert_rules before alerts
    routers = (signing, webhooks, sharing, schedules, analytics, alert_rules, alerts)
    for router in (module.router for module in routers):
        app.include_router(router)
    app.mount("/console/static", StaticFiles(packages=[("ingress.console", "static")]), name="console-static")
