"""DuckDB connections that read Iceberg tables, with the extensions loaded from their PyPI wheels (nothing is
downloaded at run time) and the session in UTC so date_trunc on TIMESTAMPTZ is not shifted.

A table in an ``s3://`` warehouse is read through the ``httpfs`` extension with one S3 secret built from the
same FileIO properties pyiceberg writes with (``s3.endpoint``, ``s3.region``, the key), so readers and the
writer always reach the same service with the same key, and give up on it within the same S3 timeouts and
attempts (``http_timeout``, ``http_retries``; ``sinks/s3_limits.py``).
"""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import duckdb

from sinks.s3_limits import S3Limits

S3_SCHEME = "s3://"


@cache
def extension_path(name: str) -> Path:
    package = importlib.import_module(f"duckdb_extension_{name}")
    folder = Path(next(iter(package.__path__)))
    path = folder / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.exists():
        raise RuntimeError(f"the {name} extension for DuckDB {duckdb.__version__} is not installed at {path}")
    return path


def sql_literal(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class S3Access:
    """How DuckDB reaches an S3 (or S3-compatible) service. Without an endpoint it is AWS S3 itself."""

    region: str
    endpoint: str | None = None
    key_id: str | None = None
    # Kept out of repr so a logged S3Access never shows the key.
    secret: str | None = field(default=None, repr=False)
    session_token: str | None = field(default=None, repr=False)
    # None: DuckDB's own (30 s, 3 retries).
    limits: S3Limits | None = None

    @classmethod
    def from_properties(cls, properties: Mapping[str, str]) -> S3Access:
        """From pyiceberg FileIO properties (``s3.region``, ``s3.endpoint``, ``s3.access-key-id``...)."""
        return cls(
            region=properties.get("s3.region") or "us-east-1",
            endpoint=properties.get("s3.endpoint") or None,
            key_id=properties.get("s3.access-key-id") or None,
            secret=properties.get("s3.secret-access-key") or None,
            session_token=properties.get("s3.session-token") or None,
            limits=S3Limits.from_properties(properties),
        )

    def secret_sql(self, name: str = "warehouse") -> str:
        """``CREATE SECRET`` for this access: path-style URLs and TLS as the endpoint's scheme says."""
        options = {"TYPE": "s3", "REGION": sql_literal(self.region)}
        if self.key_id and self.secret:
            options.update(KEY_ID=sql_literal(self.key_id), SECRET=sql_literal(self.secret))
        if self.session_token:
            options["SESSION_TOKEN"] = sql_literal(self.session_token)
        if self.endpoint:
            host, tls = endpoint_host(self.endpoint)
            options.update(ENDPOINT=sql_literal(host), URL_STYLE="'path'", USE_SSL=str(tls).lower())
        listed = ", ".join(f"{key} {value}" for key, value in options.items())
        return f"CREATE OR REPLACE SECRET {name} ({listed})"

    def settings_sql(self) -> list[str]:
        """``SET`` statements for httpfs's timeout and retries: settings of the database, not of the secret,
        so they are made before a query engine locks its configuration."""
        if self.limits is None:
            return []
        return [f"SET {name} = {value}" for name, value in self.limits.duckdb_settings().items()]


def endpoint_host(endpoint: str) -> tuple[str, bool]:
    """``http://minio:9000`` as ``("minio:9000", False)``; a bare ``host:port`` is taken as HTTPS."""
    if "://" not in endpoint:
        return endpoint.rstrip("/"), True
    parts = urlsplit(endpoint)
    return parts.netloc, parts.scheme != "http"


def s3_access_for(location: str, properties: Mapping[str, str]) -> S3Access | None:
    """What a connection needs to read files at ``location``: S3 access for ``s3://``, nothing otherwise."""
    return S3Access.from_properties(properties) if location.startswith(S3_SCHEME) else None


SPILL_FOLDER = "duckdb-tmp"


@dataclass(frozen=True)
class Spill:
    """Where one company's DuckDB writes what does not fit in memory, and how much it may write there.

    DuckDB's default spill folder is ``.tmp`` in the working directory, one for every database in the
    process: each company gets its own folder (mode 0700) under the data dir instead, with its own cap."""

    directory: Path
    max_bytes: int

    @classmethod
    def for_company(cls, data_dir: Path, namespace: str, max_bytes: int) -> Spill:
        if not namespace or "/" in namespace or namespace in (".", ".."):
            raise ValueError(f"not a company namespace: {namespace!r}")
        # One folder per process too: DuckDB names its spill files per database, not per process, and
        # removes its folder when a connection closes, so two processes must never share one.
        root = data_dir.expanduser().resolve() / SPILL_FOLDER
        return cls(root / f"p{os.getpid()}" / namespace, max_bytes)

    def prepare(self) -> None:
        """Creates the folder (and the ``duckdb-tmp`` folders above it) for this process's user only, and
        removes what processes that no longer run left behind."""
        root = self.directory.parent.parent
        root.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.directory.parent.exists()
        for folder in (root, self.directory.parent, self.directory):
            folder.mkdir(mode=0o700, exist_ok=True)
            folder.chmod(0o700)
        if fresh:
            _remove_dead_processes_folders(root)

    def config(self) -> dict[str, str]:
        return {"temp_directory": str(self.directory), "max_temp_directory_size": f"{self.max_bytes}B"}


def _remove_dead_processes_folders(root: Path) -> None:
    for folder in root.glob("p*"):
        pid = folder.name[1:]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def connect(
    *,
    threads: int = 2,
    memory_limit: str = "2GB",
    s3: S3Access | None = None,
    spill: Spill | None = None,
) -> duckdb.DuckDBPyConnection:
    config: dict[str, str | bool | int | float | list[str]] = {
        "threads": threads,
        "memory_limit": memory_limit,
    }
    if spill is not None:
        spill.prepare()
        config.update(spill.config())
    connection = duckdb.connect(":memory:", config=config)
    names = ("avro", "iceberg", "httpfs") if s3 is not None else ("avro", "iceberg")
    for name in names:
        connection.execute(f"LOAD '{extension_path(name)}'")
    if s3 is not None:
        connection.execute(s3.secret_sql())
        for statement in s3.settings_sql():
            connection.execute(statement)
    connection.execute("SET TimeZone = 'UTC'")
    return connection


def connect_to_table(
    handle: Any, *, threads: int = 1, spill: Spill | None = None
) -> duckdb.DuckDBPyConnection:
    """A connection that can read the files of ``handle`` (a pyiceberg table), wherever its warehouse is."""
    s3 = s3_access_for(str(handle.metadata_location), handle.io.properties)
    return connect(threads=threads, s3=s3, spill=spill)
