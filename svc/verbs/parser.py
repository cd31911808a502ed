"""The remote verbs' sub-commands, added to ``svc``'s parser, and their dispatch."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from svc.verbs import query, replay, schedules, tail

VERBS: dict[str, Callable[[argparse.Namespace], int]] = {
    "tail": tail.main,
    "replay": replay.main,
    "query": query.main,
    "schedules": schedules.main,
}


def add_parsers(roles: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for module in (tail, replay, query, schedules):
        module.add_parser(roles)


def run(args: argparse.Namespace) -> int:
    return VERBS[args.role](args)
