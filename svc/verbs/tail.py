"""``svc tail WEBHOOK_ID``: a webhook's deliveries as they happen, read by polling its history.

The first poll only marks what is already there; from then on each new entry, and each change of an entry's
status, is printed (oldest first). ``--forward URL`` re-posts each new delivery's original request body to
``URL``, once per execution, so a handler under development sees the live traffic."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from svc.verbs.options import add_remote_arguments

HISTORY_PATH = "/svc_poweruser/custom-webhooks/get-execution-history"
if TYPE_CHECKING:
    import httpx

SETTLED = frozenset({"SUCCESS", "FAILED", "TRANSFORM_FAILED", "FILTERED"})


def add_parser(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tail = verbs.add_parser("tail", help="print a webhook's deliveries as they happen (poweruser key)")
    tail.add_argument("webhook_id")
    tail.add_argument("--forward", metavar="URL", help="re-post each new delivery's request body to URL")
    tail.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    tail.add_argument("--limit", type=int, help="stop after this many settled deliveries")
    add_remote_arguments(tail, "poweruser key")


def entry_key(entry: dict[str, Any]) -> tuple[str, str]:
    return str(entry["id"]), str(entry["status"])


def fresh_entries(seen: set[tuple[str, str]], page: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries of ``page`` (newest first, as the history answers) not seen in their status yet, oldest
    first; ``seen`` takes them in."""
    fresh = [entry for entry in page if entry_key(entry) not in seen]
    seen.update(entry_key(entry) for entry in fresh)
    return sorted(fresh, key=lambda entry: (str(entry["queuedAt"]), int(entry["attemptNumber"])))


def summary(entry: dict[str, Any]) -> dict[str, Any]:
    """What a line shows of an entry: the --json line."""
    details = entry.get("executionDetails") or {}
    return {
        "executionId": entry["executionId"],
        "status": entry["status"],
        "attempt": entry["attemptNumber"],
        "queuedAt": entry["queuedAt"],
        "durationMs": entry.get("durationMs"),
        "error": details.get("errorMessage") or details.get("transformError"),
        "replayOf": details.get("replayOf"),
    }


def describe(entry: dict[str, Any]) -> str:
    """One line for a person: when, status, attempt, duration, execution id, and the error if any."""
    shown = summary(entry)
    duration = "-" if shown["durationMs"] is None else f"{shown['durationMs']} ms"
    line = (
        f"{shown['queuedAt']}  {shown['status']:<16} attempt {shown['attempt']}  {duration:>9}  "
        f"{shown['executionId']}"
    )
    return f"{line}  {shown['error']}" if shown["error"] else line


def forward_body(entry: dict[str, Any]) -> tuple[bytes, str]:
    """The original request body of an entry and its content type (JSON when it parses as JSON)."""
    payload = str((entry.get("executionDetails") or {}).get("requestPayload") or "")
    try:
        json.loads(payload)
    except ValueError:
        return payload.encode(), "text/plain; charset=utf-8"
    return payload.encode(), "application/json"


def run(args: argparse.Namespace) -> int:
    import httpx

    from svc.verbs.remote import Remote

    seen: set[tuple[str, str]] = set()
    forwarded: set[str] = set()
    settled = 0
    with Remote(args.url, args.key) as remote, httpx.Client(timeout=10) as local:

        def poll() -> list[dict[str, Any]]:
            answer = remote.post(HISTORY_PATH, {"webhookId": args.webhook_id, "page": 0, "size": 100})
            history: list[dict[str, Any]] = answer["history"]
            return history

        fresh_entries(seen, poll())
        print(f"tailing webhook {args.webhook_id} (Ctrl-C to stop)", file=sys.stderr, flush=True)
        while args.limit is None or settled < args.limit:
            time.sleep(args.interval)
            for entry in fresh_entries(seen, poll()):
                print(json.dumps(summary(entry)) if args.json else describe(entry), flush=True)
                if args.forward and entry["executionId"] not in forwarded:
                    forwarded.add(entry["executionId"])
                    _forward(local, args.forward, entry)
                if entry["status"] in SETTLED:
                    settled += 1
    return 0


def _forward(local: httpx.Client, url: str, entry: dict[str, Any]) -> None:
    import httpx

    body, content_type = forward_body(entry)
    try:
        answered = local.post(url, content=body, headers={"Content-Type": content_type})
    except httpx.HTTPError as exc:
        print(f"  -> {url}: no answer ({type(exc).__name__})", file=sys.stderr, flush=True)
        return
    print(f"  -> {url}: {answered.status_code}", file=sys.stderr, flush=True)


def main(args: argparse.Namespace) -> int:
    from svc.verbs.remote import RemoteError

    try:
        return run(args)
    except RemoteError as exc:
        print(f"svc tail: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
