"""Fair shares of a worker's slots across companies: while several companies want slots, none holds more than
an equal part of them; one company alone may use them all.

A company at its share does not wait in the worker's stream (that would hold back every company's records
behind it): its deliveries wait in the metadata DB (``waiting_for`` = :func:`marker`) and its own ending calls
hand their slots to them, oldest first. A company over its share while another wants a slot gives its ending
calls' slots back to the pool instead. Pure logic: the counts are the worker's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

MARKER = "company:"


class _OfCompany(Protocol):
    @property
    def company_id(self) -> str: ...


T = TypeVar("T", bound=_OfCompany)


def marker(company_id: str) -> str:
    """The ``waiting_for`` of a delivery waiting for its company's share (a destination's: its id)."""
    return MARKER + company_id


def company_of(waiting_for: str) -> str | None:
    """The company a ``waiting_for`` value waits for a share of, or None when it names a destination."""
    return waiting_for[len(MARKER) :] if waiting_for.startswith(MARKER) else None


def share(slots: int, active: int) -> int:
    """Each active company's part of ``slots`` (at least one slot each)."""
    return max(1, slots // max(1, active))


def _active(held: Counter[str], wanting: Iterable[str]) -> set[str]:
    """The companies holding a slot or wanting one."""
    return {company for company, count in held.items() if count > 0} | set(wanting)


def split(
    tasks: Sequence[T], held: Counter[str], wanting: Iterable[str], slots: int, free: int
) -> tuple[list[T], list[T]]:
    """The tasks that take a slot now (in order) and those that wait: a task whose company is at its share
    waits unless one of the ``free`` slots is left for it (the pool is never kept idle). The companies holding
    slots, wanting one and sending these tasks share the slots equally."""
    active = _active(held, wanting) | {task.company_id for task in tasks}
    part = share(slots, len(active))
    counts = Counter({company: count for company, count in held.items() if count > 0})
    go: list[T] = []
    wait: list[T] = []
    for task in tasks:
        if counts[task.company_id] < part or free > 0:
            counts[task.company_id] += 1
            free -= 1
            go.append(task)
        else:
            wait.append(task)
    return go, wait


def keeps_slot(company_id: str, held: Counter[str], wanting: Counter[str], slots: int) -> bool:
    """Whether a call of ``company_id`` that ends may hand its slot to the company's next waiting delivery:
    yes unless another company wants a slot and this one holds more than its share."""
    others = any(count > 0 for company, count in wanting.items() if company != company_id)
    if not others:
        return True
    return held[company_id] <= share(slots, len(_active(held, +wanting)))


def refill(free: int, parked: Iterable[str]) -> dict[str, int]:
    """How many of each company's deliveries waiting for a share take the ``free`` slots of a worker: equal
    parts, the remainder to the first companies (in a stable order)."""
    companies = sorted(set(parked))
    if free <= 0 or not companies:
        return {}
    part, extra = divmod(free, len(companies))
    counts = {company: part + (1 if index < extra else 0) for index, company in enumerate(companies)}
    return {company: count for company, count in counts.items() if count > 0}
