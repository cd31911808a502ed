"""FastAPI + Celery 5 on Redis: the endpoint checks the webhook's key, enqueues a task and answers 202; a
worker POSTs the payload to the handler and retries on failure.

Written as Celery's documentation shows it: the app, its broker and its task ("First Steps with Celery:
Application"; "Backends and Brokers: Using Redis"), retries on known exceptions ("Tasks: Automatic retry
for known exceptions"), no result backend since nothing reads results ("Tasks: Ignore results you don't
want"), and the worker on its defaults ("Workers Guide: Concurrency": the prefork pool, one child per CPU,
so two here). With PEER_CELERY_RELIABLE=1, the settings the documentation gives for tasks that must
survive a worker's crash: ``task_acks_late`` with ``task_reject_on_worker_lost`` ("Tasks: Should I use
retry or acks_late?", "Configuration: task_reject_on_worker_lost") and a prefetch of one ("Optimizing:
Prefetch limits"); the Redis transport's visibility timeout stays at its default ("Backends and Brokers:
Redis, Caveats"). The endpoint is a plain ``def`` because ``delay`` blocks: FastAPI runs it in its thread
pool ("Concurrency and async / await"). ``bench_peers.py`` serves it under uvicorn with a worker per core
("Deployment: Server Workers") and starts the worker with ``celery -A peers.celery_peer worker``.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import httpx
from celery import Celery
from fastapi import Body, FastAPI, Header, HTTPException

from peers.shared import (
    EXECUTION_HEADER,
    MAX_RETRIES,
    TIMEOUT_SECONDS,
    TRIGGER_PATH,
    accepted_body,
    key_matches,
    new_execution_id,
    setting,
    webhook_keys,
)

app = Celery("peers", broker=setting("BROKER_URL"))
if os.environ.get("PEER_CELERY_RELIABLE") == "1":
    app.conf.update(task_acks_late=True, task_reject_on_worker_lost=True, worker_prefetch_multiplier=1)

_handler: httpx.Client | None = None


def handler_client() -> httpx.Client:
    """One keep-alive client per pool child, made in the child (a client made before the fork would share
    its sockets between children)."""
    global _handler
    if _handler is None:
        _handler = httpx.Client(timeout=TIMEOUT_SECONDS)
    return _handler


@app.task(autoretry_for=(httpx.HTTPError,), retry_backoff=True, max_retries=MAX_RETRIES, ignore_result=True)  # type: ignore[untyped-decorator]
def deliver_webhook(execution_id: str, webhook_id: str, payload: dict[str, Any]) -> None:
    response = handler_client().post(
        setting("HANDLER_URL"), json=payload, headers={EXECUTION_HEADER: execution_id}
    )
    response.raise_for_status()


api = FastAPI()
KEYS = webhook_keys()


@api.get("/healthz")
def healthz() -> dict[str, bool]:
    return {"ok": True}


@api.post(TRIGGER_PATH, status_code=202)
def trigger(
    resourceId: str,  # svc's query parameter
    payload: Annotated[dict[str, Any], Body()],
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    if not key_matches(KEYS, resourceId, authorization):
        raise HTTPException(status_code=401, detail="unknown webhook or key")
    execution_id = new_execution_id()
    deliver_webhook.delay(execution_id, resourceId, payload)
    return accepted_body(execution_id, resourceId)
