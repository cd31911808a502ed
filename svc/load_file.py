"""``svc load FILE --table ID``: upload a local file through the intake and load it into a table, in one line.

It speaks only the public API (the client API key in ``SVC_API_KEY`` or ``--key``): multipart initiate, part
links, a PUT per part, complete, ``/load-from-s3``, then ``/job-status`` until the job ends, with a progress
bar for the upload and the job's counts at the end. The exit status is 0 when the load SUCCEEDED.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

PARTS_AT_ONCE = 4
READ_BYTES = 1024 * 1024
FINAL_STATES = {"SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT"}


class LoadCommandError(Exception):
    pass


def file_range(
    path: Path, offset: int, length: int, on_chunk: Callable[[int], object] | None = None
) -> Iterator[bytes]:
    """``length`` bytes of ``path`` from ``offset``, read in ``READ_BYTES`` chunks: a part's request body
    (send it with its ``Content-Length``). Streaming keeps one chunk in memory, and avoids a client that
    sends one large ``bytes`` body by re-slicing what is left after every socket write (httpx does)."""
    with path.open("rb") as source:
        source.seek(offset)
        left = length
        while left > 0:
            chunk = source.read(min(READ_BYTES, left))
            if not chunk:
                raise LoadCommandError(f"{path} shrank while it was being sent")
            left -= len(chunk)
            if on_chunk is not None:
                on_chunk(len(chunk))
            yield chunk


def send_part(
    client: httpx.Client,
    url: str,
    path: Path,
    offset: int,
    length: int,
    on_chunk: Callable[[int], object] | None = None,
) -> str:
    """PUT one part, streamed from the file; answers its ETag."""
    body = file_range(path, offset, length, on_chunk)
    sent = client.put(url, content=body, headers={"Content-Length": str(length)})
    if sent.status_code >= 400:
        raise LoadCommandError(f"part upload answered {sent.status_code}: {sent.text[:300]}")
    return str(sent.headers["ETag"])


def _answer(response: httpx.Response) -> dict[str, Any]:
    try:
        body: dict[str, Any] = response.json()
    except json.JSONDecodeError:
        body = {"errors": [response.text[:500]]}
    if response.status_code >= 400:
        raise LoadCommandError(f"{response.status_code}: {'; '.join(body.get('errors') or [])}")
    return body


def upload(
    client: httpx.Client, path: Path, part_bytes: int, console: Console, parts_at_once: int = PARTS_AT_ONCE
) -> str:
    """Upload ``path`` through the intake (``client`` carries the base URL and the client API key); answers
    the completed upload's s3Uri."""
    size = path.stat().st_size
    started = _answer(client.post("/clients/svcdb-intake/multipart-initiate", json={"fileName": path.name}))
    upload_id, key = started["uploadId"], started["s3Key"]
    count = max(1, -(-size // part_bytes))
    links = _answer(
        client.post(
            "/clients/svcdb-intake/multipart-part-urls",
            json={"uploadId": upload_id, "s3Key": key, "partNumbers": list(range(1, count + 1))},
        )
    )["partUrls"]
    columns = (*Progress.get_default_columns()[:-1], BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with (
        Progress(*columns, console=console, transient=False) as progress,
        httpx.Client(timeout=300) as parts_client,  # part links carry their own credential
        ThreadPoolExecutor(max_workers=parts_at_once) as pool,
    ):
        task = progress.add_task(f"uploading {path.name}", total=size)

        def send(number: int) -> str:
            offset = (number - 1) * part_bytes
            length = min(part_bytes, size - offset)
            advance = partial(progress.advance, task)
            try:
                return send_part(parts_client, links[str(number)], path, offset, length, on_chunk=advance)
            except LoadCommandError as error:
                raise LoadCommandError(f"part {number}: {error}") from error

        numbers = range(1, count + 1)
        etags = {str(number): etag for number, etag in zip(numbers, pool.map(send, numbers), strict=True)}
    done = _answer(
        client.post(
            "/clients/svcdb-intake/multipart-complete",
            json={"uploadId": upload_id, "s3Key": key, "partETags": etags},
        )
    )
    if int(done["sizeBytes"]) != size:
        raise LoadCommandError(f"the upload holds {done['sizeBytes']} bytes, the file {size}")
    return str(done["s3Uri"])


def load(client: httpx.Client, args: argparse.Namespace, uri: str, console: Console) -> dict[str, Any]:
    csv: dict[str, Any] = {"header": not args.no_header}
    if args.delimiter:
        csv["delimiter"] = args.delimiter
    if args.null_string is not None:
        csv["nullString"] = args.null_string
    body: dict[str, Any] = {"tableId": args.table, "sourceUris": [uri], "mode": args.mode, "csv": csv}
    if args.format:
        body["format"] = args.format
    params = {"resourceId": args.table}
    started = _answer(client.post("/clients/svcdb/analytics/load-from-s3", params=params, json=body))
    for note in started.get("notes") or []:
        console.print(f"[dim]{note}[/dim]")
    job_id = started["jobId"]
    with console.status(f"loading (job {job_id})"):
        while True:
            status = _answer(
                client.post(
                    "/clients/svcdb/analytics/job-status",
                    params=params,
                    json={"tableId": args.table, "jobId": job_id, "waitMs": 20_000},
                )
            )
            if status["state"] in FINAL_STATES:
                return status
            time.sleep(0.2)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    if not args.key:
        console.print("[red]a client API key is needed: --key or SVC_API_KEY[/red]")
        return 2
    if not args.file.is_file():
        console.print(f"[red]{args.file} is not a file[/red]")
        return 2
    headers = {"Authorization": args.key}
    try:
        with httpx.Client(base_url=args.url, headers=headers, timeout=60) as client:
            uri = upload(client, args.file, args.part_mb * 1024 * 1024, console)
            status = load(client, args, uri, console)
    except (LoadCommandError, httpx.HTTPError) as exc:
        console.print(f"[red]load failed: {exc}[/red]")
        return 1
    print(json.dumps(status, indent=2), file=sys.stdout)
    if status["state"] != "SUCCEEDED":
        return 1
    console.print(
        f"[green]{status.get('rowsLoaded')} rows loaded[/green], {status.get('rowsRejected')} rejected"
    )
    return 0
