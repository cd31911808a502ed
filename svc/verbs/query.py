"""``svc query "SQL" --table ID [--format table|csv|json]``: run a query as a job, show its progress on
stderr while it runs, then print every page of its result."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from svc.verbs import render
from svc.verbs.options import add_remote_arguments

ANALYTICS = "/clients/svcdb/analytics"
FINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT"})
STATUS_WAIT_MS = 1000  # each job-status call waits at the server this long for the job's end
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def add_parser(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    query = verbs.add_parser("query", help="run a SQL query on a table and print its result (client API key)")
    query.add_argument("sql")
    query.add_argument("--table", required=True, help="the table id the query is run under")
    query.add_argument("--format", choices=("table", "csv", "json"), default="table")
    query.add_argument("--page-size", type=int, default=1000, help="rows per results call (1-1,000)")
    query.add_argument(
        "--timeout", type=float, default=600.0, help="seconds to wait for the job (default 600)"
    )
    add_remote_arguments(query, "client API key")


class Progress:
    """The job's state on stderr: one rewritten line on a terminal, a line per change of state elsewhere."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.ticks = 0
        self.last_state: str | None = None
        self.live = stream.isatty()

    def line(self, status: dict[str, Any]) -> str:
        elapsed = self.clock() - self.started
        spin = SPINNER[self.ticks % len(SPINNER)] if self.live and status["state"] not in FINAL_STATES else ""
        scanned = status.get("bytesScanned")
        scan = f", {scanned:,} bytes scanned" if isinstance(scanned, int) and scanned else ""
        return f"{spin} job {status['jobId']} {status['state']} {elapsed:.1f} s{scan}".strip()

    def show(self, status: dict[str, Any]) -> None:
        self.ticks += 1
        if self.live:
            end = "\n" if status["state"] in FINAL_STATES else ""
            self.stream.write("\r\x1b[K" + self.line(status) + end)
        elif status["state"] != self.last_state:
            self.stream.write(self.line(status) + "\n")
        self.last_state = status["state"]
        self.stream.flush()


def failure(status: dict[str, Any]) -> str:
    error = status.get("error") or {}
    message = error.get("message") if isinstance(error, dict) else str(error)
    return f"job {status['jobId']} {status['state']}" + (f": {message}" if message else "")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from svc.verbs.remote import Remote

    params = {"resourceId": args.table}
    progress = Progress(err)
    with Remote(args.url, args.key, timeout=30 + STATUS_WAIT_MS / 1000) as remote:
        status = remote.post(
            f"{ANALYTICS}/query", {"tableId": args.table, "sql": args.sql, "waitMs": 0}, **params
        )
        deadline = time.monotonic() + args.timeout
        while True:
            progress.show(status)
            if status["state"] in FINAL_STATES:
                break
            if time.monotonic() > deadline:
                err.write(
                    f"svc query: job {status['jobId']} still {status['state']} after {args.timeout:.0f} s\n"
                )
                return 1
            body = {"tableId": args.table, "jobId": status["jobId"], "waitMs": STATUS_WAIT_MS}
            status = {**remote.post(f"{ANALYTICS}/job-status", body, **params), "jobId": status["jobId"]}
        if status["state"] != "SUCCEEDED":
            err.write(f"svc query: {failure(status)}\n")
            return 1
        columns: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        page = 0
        while True:
            body = {"tableId": args.table, "jobId": status["jobId"], "page": page, "pageSize": args.page_size}
            answer = remote.post(f"{ANALYTICS}/job-results", body, **params)
            columns = columns or answer["columns"]
            rows.extend(answer["rows"])
            if not answer.get("hasMore"):
                break
            page += 1
    names = [column["name"] for column in columns]
    if args.json or args.format == "json":
        out.write(render.as_json(status["jobId"], columns, rows))
    elif args.format == "csv":
        out.write(render.as_csv(names, rows))
    else:
        out.write(render.as_table(names, rows))
    return 0


def main(args: argparse.Namespace) -> int:
    from svc.verbs.remote import RemoteError

    try:
        return run(args, sys.stdout, sys.stderr)
    except RemoteError as exc:
        print(f"svc query: {exc}", file=sys.stderr)
        return 1
