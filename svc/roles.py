"""The long-running roles: ``svc ingress`` and ``svc worker``."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import sys

import uvicorn
import uvloop

from schemas.settings import Settings
from streams.areas import AREAS
from svc import logs, orphans, patches

log = logging.getLogger(__name__)


def _share_the_interpreter_lock_sooner() -> None:
    """A thread holding the metadata DB's write lock (a group commit) waits at most 1 ms, not Python's 5 ms,
    for the interpreter lock while the event loop is busy, so the write lock is held for less time."""
    sys.setswitchinterval(0.001)


def _configure_the_models() -> None:
    """The ORM's mappers configured now, not by the first statement that names a model: that statement runs in
    a group commit holding the metadata DB's write lock, and configuring them there keeps every other
    process's commits waiting (the first claim of a worker started on a fresh broker, say).
    """
    from sqlalchemy.orm import configure_mappers

    import sinks.db.models  # noqa: F401 - every mapper registered before they are configured

    configure_mappers()


def run_ingress(settings: Settings, *, listen_fd: int | None = None) -> None:
    """Serve on ``settings.host:port``, or on the listening socket ``listen_fd`` inherited from ``svc up``
    (which shares one socket among its ingress processes)."""
    from ingress.app import create_app

    if not settings.kafka_bootstrap:
        raise SystemExit("svc ingress needs SVC_KAFKA_BOOTSTRAP (svc up sets it for its children)")
    _share_the_interpreter_lock_sooner()
    _configure_the_models()
    orphans.exit_when_orphaned(settings.shutdown_timeout_seconds)
    patches.apply(patches.INGRESS_PATCHES)
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        # libuv's loop and the C HTTP parser: less CPU per request than asyncio's loop and h11.
        loop="uvloop",
        http="httptools",
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=int(settings.shutdown_timeout_seconds),
        server_header=False,
    )
    server = uvicorn.Server(config)
    if listen_fd is None:
        server.run()
        return
    # Not uvicorn's own `fd` option: it opens the descriptor as a unix socket. socket(fileno=) reads the
    # family (IPv4 or IPv6) from the descriptor itself.
    server.run(sockets=[socket.socket(fileno=listen_fd)])


def run_worker(settings: Settings) -> None:
    import faust

    from streams.app import create_app

    if not settings.kafka_bootstrap:
        raise SystemExit("svc worker needs SVC_KAFKA_BOOTSTRAP (svc up sets it for its children)")
    # libuv's loop, as the ingress runs: the worker's per-delivery tasks, callbacks and socket writes cost
    # a fraction of asyncio's pure-Python loop. Set before the app exists, so Faust and mode take it.
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.set_event_loop(asyncio.new_event_loop())
    patches.apply(patches.WORKER_PATCHES)
    orphans.exit_when_orphaned(settings.shutdown_timeout_seconds)
    app = create_app(settings, areas=AREAS)
    worker = faust.Worker(
        app,
        loglevel=settings.log_level.lower(),
        logging_config=logs.dict_config(settings.log_level),
        quiet=True,
        redirect_stdouts=False,
    )
    _share_the_interpreter_lock_sooner()
    _configure_the_models()
    # What is loaded now lives as long as the process: kept out of the collector's full passes.
    gc.collect()
    gc.freeze()
    # Faust installs its own SIGTERM/SIGINT handlers: it stops the agents, commits offsets, then exits.
    worker.execute_from_commandline()
