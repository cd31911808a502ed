"""Which version of a handler resource a config runs (spec: "Versioning"). Pure: no I/O.

With ``versionNumber`` the config wants that exact version, and its state must be ``versionState``; without
it, the highest-numbered version in ``versionState``. A config without a version object wants the latest
PUBLISHED version, so configs written before versions existed keep running what they ran.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from schemas.versions import ResolvedVersion, VersionSelector, VersionState

LATEST_PUBLISHED = VersionSelector()


class VersionNotResolved(ValueError):
    """No version of the resource matches the selector; the message names the resource, state and number."""


@dataclass(frozen=True)
class Version:
    number: int
    state: VersionState
    endpoint: str

    def resolved(self) -> ResolvedVersion:
        return ResolvedVersion(version_state=self.state, version_number=self.number)


def resolve(versions: Iterable[Version], selector: VersionSelector, resource: str) -> Version:
    """The version ``selector`` picks among ``versions``; ``resource`` (e.g. ``TOOL <id>``) names it in the
    error when none matches."""
    state, number = selector.version_state, selector.version_number
    if number is not None:
        exact = next((version for version in versions if version.number == number), None)
        if exact is None:
            raise VersionNotResolved(f"{resource} has no {state.value} version {number}")
        if exact.state is not state:
            raise VersionNotResolved(f"{resource} version {number} is {exact.state.value}, not {state.value}")
        return exact
    in_state = [version for version in versions if version.state is state]
    if not in_state:
        raise VersionNotResolved(f"{resource} has no {state.value} version")
    return max(in_state, key=lambda version: version.number)


def selector_of(stored: Any) -> VersionSelector:
    """The selector of a stored config's ``version`` value (absent: the latest PUBLISHED version)."""
    if stored is None:
        return LATEST_PUBLISHED
    try:
        return VersionSelector.model_validate(stored)
    except ValidationError:
        # Stored configs were validated when saved; a hand-edited row must fail its run, not crash the worker.
        raise VersionNotResolved(f"the stored version object {str(stored)[:200]} is not valid") from None
