"""What ``svc up`` runs on, as the lines it prints at start, and how many processes of each role it runs.

Pure functions of the settings: nothing here connects to anything. A database URL is never printed as given:
only its dialect, host (or socket directory), port and database name are, so no user name, password or
query parameter (libpq takes ``?password=``) can reach a terminal or a log."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from schemas.settings import Settings

MORE_THAN_ONE_NEEDS_POSTGRESQL = (
    "{what}: more than one process needs PostgreSQL, since SQLite allows one writer at a time "
    "(set SVC_DATABASE_URL to a postgresql:// URL, or leave the count at 1)"
)


@dataclass(frozen=True)
class ProcessCounts:
    ingress: int
    workers: int


def is_sqlite(database_url: str) -> bool:
    return database_url.startswith("sqlite")


def process_counts(settings: Settings, cpu_count: int | None) -> ProcessCounts:
    """The settings' counts, or the defaults: 1 on SQLite, one per core on PostgreSQL."""
    default = 1 if is_sqlite(settings.resolved_database_url) else max(1, cpu_count or 1)
    return ProcessCounts(
        ingress=settings.ingress_processes or default,
        workers=settings.worker_processes or default,
    )


def sqlite_refusal(settings: Settings, counts: ProcessCounts) -> str | None:
    """The one line ``svc up`` stops with when SQLite is asked to serve several processes, else None."""
    if not is_sqlite(settings.resolved_database_url):
        return None
    asked = [
        f"{variable}={count}"
        for variable, count in (
            ("SVC_INGRESS_PROCESSES", counts.ingress),
            ("SVC_WORKER_PROCESSES", counts.workers),
        )
        if count > 1
    ]
    if not asked:
        return None
    return MORE_THAN_ONE_NEEDS_POSTGRESQL.format(what=" and ".join(asked))


def database_location(database_url: str) -> str:
    """``postgresql at host:port, database name`` (or ``at socket <dir>``), ``sqlite file <path>``."""
    try:
        url = make_url(database_url)
    except ArgumentError:
        return "a database URL that cannot be parsed"
    dialect = url.get_backend_name()
    if dialect == "sqlite":
        return "sqlite in memory" if url.database in (None, "", ":memory:") else f"sqlite file {url.database}"
    socket_dir = url.query.get("host")
    if isinstance(socket_dir, tuple):
        socket_dir = ",".join(socket_dir)
    if url.host:
        where = f"{url.host}:{url.port}" if url.port else url.host
    elif socket_dir and socket_dir.startswith("/"):
        where = f"socket {socket_dir}"
    elif socket_dir:
        where = socket_dir
    else:
        where = "the default socket"
    return f"{dialect} at {where}, database {url.database or '(default)'}"


def without_credentials(location: str) -> str:
    """A path as it is; a URL without its user, password, query and fragment."""
    if "://" not in location:
        return location
    parts = urlsplit(location)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}"


def broker_description(settings: Settings, bootstrap: str) -> str:
    if settings.embedded_broker:
        return f"embedded at {bootstrap} (in memory; restarted empty if it dies)"
    servers = ",".join(server.rsplit("@", 1)[-1].strip() for server in bootstrap.split(","))
    return f"external, bootstrap {servers}"


def object_store_description(settings: Settings) -> str:
    store = settings.resolved_object_store
    if not store.startswith("s3://"):
        return f"{store} (local directory)"
    endpoint = f" via {without_credentials(settings.s3_endpoint)}" if settings.s3_endpoint else ""
    return f"{without_credentials(store)}{endpoint}"


def shape_lines(settings: Settings, *, bootstrap: str, counts: ProcessCounts, port: int) -> list[str]:
    """One line each: database, broker, warehouse, object store, ingress and worker processes, metrics."""
    rows = [
        ("database", database_location(settings.resolved_database_url)),
        ("broker", broker_description(settings, bootstrap)),
        ("warehouse", without_credentials(settings.resolved_warehouse)),
        ("object store", object_store_description(settings)),
        ("ingress", f"{_processes(counts.ingress)} {_on(counts.ingress)} {settings.host}:{port}"),
        ("workers", f"{_processes(counts.workers)} in consumer group {settings.worker_id}"),
        ("metrics", metrics_description(settings, counts)),
    ]
    width = max(len(label) for label, _ in rows) + 1
    return [f"{label + ':':<{width}} {value}" for label, value in rows]


def metrics_ports(settings: Settings, ingress_count: int) -> list[int]:
    """The metrics port of each ingress process (ingress-1 first): consecutive from the setting's; none
    when it is 0."""
    return _consecutive(settings.metrics_port, ingress_count)


def worker_metrics_ports(settings: Settings, worker_count: int) -> list[int]:
    """The metrics port of each worker (worker-1 first), as ``metrics_ports`` gives the ingress's."""
    return _consecutive(settings.worker_metrics_port, worker_count)


def _consecutive(first: int, count: int) -> list[int]:
    return [] if first == 0 else [first + index for index in range(count)]


def metrics_port_clash(settings: Settings, counts: ProcessCounts) -> str | None:
    """The line ``svc up`` stops with when the ingress's and the workers' metrics ports overlap, else None."""
    ingress = metrics_ports(settings, counts.ingress)
    workers = worker_metrics_ports(settings, counts.workers)
    if not set(ingress) & set(workers):
        return None
    return (
        f"the ingress's metrics ports ({_span(ingress)}) and the workers' ({_span(workers)}) overlap: "
        "set SVC_METRICS_PORT and SVC_WORKER_METRICS_PORT further apart"
    )


def metrics_description(settings: Settings, counts: ProcessCounts) -> str:
    ingress = metrics_ports(settings, counts.ingress)
    workers = worker_metrics_ports(settings, counts.workers)
    host = settings.metrics_host
    parts = [
        f"http://{host}:{_span(ports)}/metrics ({role})"
        for role, ports in (("ingress", ingress), ("workers", workers))
        if ports
    ]
    if not parts:
        return "off (SVC_METRICS_PORT=0, SVC_WORKER_METRICS_PORT=0)"
    return ", ".join(parts)


def _span(ports: list[int]) -> str:
    return str(ports[0]) if len(ports) == 1 else f"{ports[0]}-{ports[-1]}"


def _on(count: int) -> str:
    return "on" if count == 1 else "sharing"


def _processes(count: int) -> str:
    return "1 process" if count == 1 else f"{count} processes"
