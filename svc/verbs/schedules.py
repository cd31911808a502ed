"""``svc schedules preview EXPRESSION [--timezone TZ] [--count N]``: the next fire times of a schedule
expression (``cron(...)``, ``rate(...)`` or ``at(...)``), as the service computes them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import ValidationError

from schemas.scheduled.preview import SchedulePreviewRequest
from svc.verbs.options import add_remote_arguments, invalid_options

PREVIEW_PATH = "/clients/scheduled-events/preview"


def add_parser(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schedules = verbs.add_parser("schedules", help="work with schedule expressions (client API key)")
    actions = schedules.add_subparsers(dest="action", required=True)
    preview = actions.add_parser("preview", help="the next fire times of a schedule expression")
    preview.add_argument(
        "expression", help="cron(0 9 ? * MON-FRI *), rate(5 minutes) or at(2027-07-04T09:00:00)"
    )
    preview.add_argument("--timezone", help="IANA name (default UTC)")
    preview.add_argument("--count", type=int, default=10, help="how many fire times (1-100, default 10)")
    preview.add_argument(
        "--from", dest="since", metavar="T", help="fire times after T (ISO-8601; default now)"
    )
    add_remote_arguments(preview, "client API key")


def preview_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {"cronExpression": args.expression, "count": args.count}
    if args.timezone is not None:
        body["timezone"] = args.timezone
    if args.since is not None:
        body["from"] = args.since
    SchedulePreviewRequest.model_validate(body)  # the service's own checks, before any call
    return body


def main(args: argparse.Namespace) -> int:
    from svc.verbs.remote import Remote, RemoteError

    try:
        body = preview_body(args)
    except ValidationError as exc:
        print(f"svc schedules preview: {invalid_options(exc)}", file=sys.stderr)
        return 2
    try:
        with Remote(args.url, args.key) as remote:
            answer = remote.post(PREVIEW_PATH, body)
    except RemoteError as exc:
        print(f"svc schedules preview: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(answer))
    else:
        print(f"next {len(answer['fireTimes'])} fire times ({answer['timezone']}):")
        print("\n".join(f"  {moment}" for moment in answer["fireTimes"]))
    return 0
