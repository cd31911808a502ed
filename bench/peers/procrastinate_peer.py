"""FastAPI + Procrastinate on PostgreSQL: the durable-queue peer, with the same endpoint and task as the
Celery peer (the webhook's key checked, a job deferred, 202; the job POSTs the payload to the handler,
retried on failure).

Written as Procrastinate's documentation shows it: the app on a psycopg connector ("Quickstart: Create a
Procrastinate application object"), its pool opened for the web app's lifetime ("Launch a worker: ...
Inside an application", here in FastAPI's lifespan), the job deferred with ``defer_async`` from an async
endpoint ("Defer a job"), retries with a ``RetryStrategy`` ("Retry a job"), and the jobs of a worker
that died put back by the documented periodic task ("Retry stalled jobs"; run each minute rather than
every ten, so a crash's jobs come back within the bench's wait). One worker process runs several jobs at
once on its event loop, its pool one connection larger ("Execute multiple jobs at the same time";
"Discussions: Mind the size of your PostgreSQL pool"). The schema is applied with ``procrastinate schema
--apply`` ("Quickstart: Prepare the database").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import httpx
import procrastinate
from fastapi import Body, FastAPI, Header, HTTPException

from peers.shared import (
    EXECUTION_HEADER,
    MAX_RETRIES,
    PROCRASTINATE_CONCURRENCY,
    TIMEOUT_SECONDS,
    TRIGGER_PATH,
    accepted_body,
    key_matches,
    new_execution_id,
    setting,
    webhook_keys,
)

app = procrastinate.App(
    connector=procrastinate.PsycopgConnector(
        conninfo=setting("DATABASE_URL"), max_size=PROCRASTINATE_CONCURRENCY + 1
    )
)

_handler: httpx.AsyncClient | None = None


def handler_client() -> httpx.AsyncClient:
    """One keep-alive client for the worker, made on its event loop."""
    global _handler
    if _handler is None:
        _handler = httpx.AsyncClient(timeout=TIMEOUT_SECONDS)
    return _handler


@app.task(
    name="deliver_webhook", retry=procrastinate.RetryStrategy(max_attempts=MAX_RETRIES, exponential_wait=1)
)
async def deliver_webhook(execution_id: str, webhook_id: str, payload: dict[str, Any]) -> None:
    response = await handler_client().post(
        setting("HANDLER_URL"), json=payload, headers={EXECUTION_HEADER: execution_id}
    )
    response.raise_for_status()


@app.periodic(cron="* * * * *")
@app.task(queueing_lock="retry_stalled_jobs", pass_context=True)
async def retry_stalled_jobs(context: procrastinate.JobContext, timestamp: int) -> None:
    for job in await app.job_manager.get_stalled_jobs():
        await app.job_manager.retry_job(job)


@asynccontextmanager
async def lifespan(_api: FastAPI) -> AsyncIterator[None]:
    async with app.open_async():
        yield


api = FastAPI(lifespan=lifespan)
KEYS = webhook_keys()


@api.get("/healthz")
async def healthz() -> dict[str, bool]:
    return {"ok": True}


@api.post(TRIGGER_PATH, status_code=202)
async def trigger(
    resourceId: str,  # svc's query parameter
    payload: Annotated[dict[str, Any], Body()],
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    if not key_matches(KEYS, resourceId, authorization):
        raise HTTPException(status_code=401, detail="unknown webhook or key")
    execution_id = new_execution_id()
    await deliver_webhook.defer_async(execution_id=execution_id, webhook_id=resourceId, payload=payload)
    return accepted_body(execution_id, resourceId)
