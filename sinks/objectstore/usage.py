"""The object store's bytes by top-level area and company (`svc admin storage`).

Keys are ``<area>/<company id>/...`` (``uploads/``, ``results/``, ``webhook-bodies/``): the first segment is
the area, the second the company. A key with no second folder counts under its area with no company; a key
at the top with no folder counts under the area ``""``.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemas.storage import ObjectAreaUsage
from sinks.objectstore.base import ObjectStore, check_key
from sinks.objectstore.exceptions import InvalidKey


def area_of(key: str) -> tuple[str, str | None]:
    """``(area, company)`` of one key."""
    area, slash, rest = key.partition("/")
    if not slash:
        return "", None
    company, deeper, _ = rest.partition("/")
    return area, company if deeper else None


def tally(entries: Iterable[tuple[str, int]]) -> list[ObjectAreaUsage]:
    """``(key, bytes)`` pairs summed per area and company, by area, then the most bytes first."""
    sums: dict[tuple[str, str | None], list[int]] = {}
    for key, size in entries:
        counted = sums.setdefault(area_of(key), [0, 0])
        counted[0] += 1
        counted[1] += size
    found = [
        ObjectAreaUsage(area=area, company_id=company, objects=objects, bytes=size)
        for (area, company), (objects, size) in sums.items()
    ]
    return sorted(found, key=lambda usage: (usage.area, -usage.bytes, usage.company_id or ""))


def object_usage(store: ObjectStore, company_id: str | None = None) -> list[ObjectAreaUsage]:
    """Every object of the store (one listing), or with ``company_id`` the objects under each area's folder
    of that company (one listing per area)."""
    if company_id is None:
        return tally(store.sizes())
    if "/" in check_key(company_id):
        raise InvalidKey("a company id is one segment of a key")
    return tally(pair for area in store.top_level() for pair in store.sizes(f"{area}/{company_id}/"))
