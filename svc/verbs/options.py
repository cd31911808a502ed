"""The options every remote verb takes. No HTTP client here: ``svc``'s parser is built for every command."""

from __future__ import annotations

import argparse
import os

from pydantic import ValidationError

DEFAULT_URL = "http://127.0.0.1:8080"


def add_remote_arguments(parser: argparse.ArgumentParser, key_kind: str) -> None:
    """``--url``, ``--key`` and ``--json``; ``key_kind`` names the key the verb's calls take."""
    parser.add_argument(
        "--url",
        default=os.environ.get("SVC_URL", DEFAULT_URL),
        help=f"the service (or SVC_URL; {DEFAULT_URL})",
    )
    parser.add_argument("--key", default=os.environ.get("SVC_KEY"), help=f"{key_kind} (or SVC_KEY)")
    parser.add_argument("--json", action="store_true", help="machine-readable output: JSON")


def invalid_options(exc: ValidationError) -> str:
    """A request model's refusal of the options, in one line, as the service would word it."""
    return "; ".join(
        f"{'.'.join(map(str, error['loc']))}: {error['msg'].removeprefix('Value error, ')}"
        if error["loc"]
        else error["msg"].removeprefix("Value error, ")
        for error in exc.errors()
    )
