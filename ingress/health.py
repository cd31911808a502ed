"""Liveness and readiness. Prometheus metrics have their own listener (sinks/metrics_listener.py).

Readiness checks the metadata database and the broker, and the storage: ``full`` while a file system of the
local storage is short of room (``sinks/storage_space.py``) or a write was refused for lack of space within
the last seconds (``ingress.errors.full_sightings``), and ``ok`` otherwise."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from ingress.deps import EngineDep, PublisherDep, SettingsDep
from ingress.errors import DATABASE_RETRY_AFTER_SECONDS, STORAGE_FULL_RETRY_AFTER_SECONDS, full_sightings
from sinks.db.engine import ping
from sinks.kafka_admin import broker_reachable
from sinks.storage_space import local_storage_short

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness: the process answers")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz", summary="Readiness: the metadata DB and the broker are reachable, the storage not full"
)
async def readyz(engine: EngineDep, publisher: PublisherDep, settings: SettingsDep) -> JSONResponse:
    async def database() -> bool:
        try:
            await run_in_threadpool(ping, engine)
            return True
        except SQLAlchemyError:
            return False

    async def broker() -> str:
        # While `svc up` restarts its embedded broker the ingress still accepts work: it is committed and
        # the workers started on the new broker hand it over (the producer knows; sinks/kafka.py).
        if publisher.signal.away():
            return "restarting"
        return "ok" if await broker_reachable(settings.kafka_bootstrap or "") else "unreachable"

    async def storage() -> str:
        if full_sightings.recent():
            return "full"
        # statvfs is one system call, but a hung network file system would hold the event loop.
        return "full" if await run_in_threadpool(local_storage_short, settings) else "ok"

    db_ok, broker_state, storage_state = await asyncio.gather(database(), broker(), storage())
    checks = {"database": "ok" if db_ok else "unreachable", "broker": broker_state, "storage": storage_state}
    full = storage_state == "full"
    ready = db_ok and broker_state != "unreachable" and not full
    errors = [f"{name} unreachable" for name, state in checks.items() if state == "unreachable"]
    errors += ["storage full"] if full else []
    # A load balancer or a client told "not ready" waits as long as for any other 503 of an outage.
    wait = STORAGE_FULL_RETRY_AFTER_SECONDS if full else DATABASE_RETRY_AFTER_SECONDS
    headers = None if ready else {"Retry-After": str(wait)}
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks, "errors": errors},
        status_code=200 if ready else 503,
        headers=headers,
    )
