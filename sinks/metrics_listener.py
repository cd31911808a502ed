"""Prometheus metrics on a listener of their own, not the public port: the ingress's on
`SVC_METRICS_HOST`:`SVC_METRICS_PORT`, a worker's on `SVC_METRICS_HOST`:`SVC_WORKER_METRICS_PORT`.

The public port faces tenants and the internet; request counts per route and status, and a worker's delivery
outcomes, are for the operator's scraper. A separate listener bound to loopback by default is the usual shape
of a Prometheus target. A port that cannot be bound is logged and skipped: metrics are not worth refusing
traffic for, and a restarted process racing its predecessor for the port must still serve. One
implementation for both roles, here in sinks, which the ingress and the workers may both import."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer, _SilentHandler

from schemas.ids import new_id

log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def with_request_id(app: WsgiApp) -> WsgiApp:
    """Every answer carries X-Request-Id, as the public port's do."""

    def wrapped(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        request_id = environ.get("HTTP_X_REQUEST_ID") or new_id()

        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            return start_response(status, [*headers, ("X-Request-Id", str(request_id)[:128])], *exc_info)

        return app(environ, start)

    return wrapped


class MetricsListener:
    """Serves ``registry`` on a daemon thread; ``port`` 0 means no listener at all."""

    def __init__(self, registry: CollectorRegistry, host: str, port: int) -> None:
        self._registry = registry
        self._host = host
        self._port = port
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int | None:
        """The bound port, or None when nothing listens."""
        return self._server.server_port if self._server is not None else None

    def start(self) -> None:
        if self._port == 0:
            return
        # A class per listener: the address family is a class attribute of socketserver's servers.
        server_class: type[WSGIServer] = type("MetricsServer", (ThreadingWSGIServer,), {})
        server_class.address_family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        try:
            server: WSGIServer = make_server(
                self._host,
                self._port,
                with_request_id(make_wsgi_app(self._registry)),
                server_class,
                handler_class=_SilentHandler,
            )
        except OSError as exc:
            log.error(
                "metrics listener not started",
                extra={"host": self._host, "port": self._port, "error": str(exc)},
            )
            return
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
        self._thread.start()
        log.info("metrics listening", extra={"host": self._host, "port": server.server_port})

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server = None
