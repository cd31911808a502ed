"""Liveness and readiness. Prometheus metrics have their own listener (ingress/metrics_listener.py)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from ingress.deps import Svc
from ingress.errors import DATABASE_RETRY_AFTER_SECONDS
from sinks.db.engine import ping
from sinks.kafka import broker_reachable

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness: the process answers")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="Readiness: the metadata DB and the broker are reachable")
async def readyz(svc: Svc) -> JSONResponse:
    async def database() -> bool:
        try:
            await run_in_threadpool(ping, svc.engine)
            return True
        except SQLAlchemyError:
            return False

    bootstrap = svc.settings.kafka_bootstrap or ""
    db_ok, broker_ok = await asyncio.gather(database(), broker_reachable(bootstrap))
    checks = {"database": "ok" if db_ok else "unreachable", "broker": "ok" if broker_ok else "unreachable"}
    ready = db_ok and broker_ok
    errors = [f"{name} unreachable" for name, state in checks.items() if state != "ok"]
    # A load balancer or a client told "not ready" waits as long as for any other 503 of an outage.
    headers = None if ready else {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks, "errors": errors},
        status_code=200 if ready else 503,
        headers=headers,
    )
