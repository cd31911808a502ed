"""``svc replay WEBHOOK_ID --status FAILED [--from T] [--dry-run]``: send a webhook's matching deliveries
again (the replay API's filter form); ``--dry-run`` only counts and lists them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import ValidationError

from schemas.replay import ReplayRequest
from svc.verbs.options import add_remote_arguments, invalid_options

REPLAY_PATH = "/svc_poweruser/custom-webhooks/replay"
STATUSES = ("FAILED", "TRANSFORM_FAILED", "SUCCESS", "FILTERED", "QUEUED", "PROCESSING")


def add_parser(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    replay = verbs.add_parser(
        "replay", help="deliver a webhook's deliveries of one status again (poweruser key)"
    )
    replay.add_argument("webhook_id")
    replay.add_argument("--status", required=True, choices=STATUSES, help="the deliveries' current status")
    replay.add_argument(
        "--from", dest="since", metavar="T", help="only deliveries that arrived at or after T (ISO-8601)"
    )
    replay.add_argument("--to", dest="until", metavar="T", help="only deliveries that arrived before T")
    replay.add_argument("--limit", type=int, help="at most this many deliveries")
    replay.add_argument("--dry-run", action="store_true", help="list what would be replayed, send nothing")
    add_remote_arguments(replay, "poweruser key")


def replay_body(args: argparse.Namespace) -> dict[str, Any]:
    """The replay call's body for the command's options, checked by the service's own request model first
    (a ``--from`` without an offset is refused here, before any call)."""
    window = {"status": args.status, "from": args.since, "to": args.until}
    body: dict[str, Any] = {
        "webhookId": args.webhook_id,
        "filter": {name: value for name, value in window.items() if value is not None},
        "dryRun": args.dry_run,
    }
    if args.limit is not None:
        body["limit"] = args.limit
    ReplayRequest.model_validate(body)
    return body


def describe(answer: dict[str, Any], dry_run: bool) -> str:
    """The answer for a person: the counts, then one line per execution."""
    counts = "dry run: nothing sent" if dry_run else f"replayed {answer['replayed']}"
    lines = [f"matched {answer['matched']}, {counts}"]
    for execution in answer.get("executions") or []:
        new = execution.get("executionId") or "-"
        line = f"  {execution['originalExecutionId']} -> {new}"
        if execution.get("error"):
            line += f"  {execution['error']}"
        lines.append(line)
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    from svc.verbs.remote import Remote, RemoteError

    try:
        body = replay_body(args)
    except ValidationError as exc:
        print(f"svc replay: {invalid_options(exc)}", file=sys.stderr)
        return 2
    try:
        with Remote(args.url, args.key) as remote:
            answer = remote.post(REPLAY_PATH, body)
    except RemoteError as exc:
        print(f"svc replay: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(answer) if args.json else describe(answer, args.dry_run))
    return 0
