"""Resource versions (spec: "Versioning"): which version of an agent, tool or manager a config runs.

A handler resource has numbered versions, each PUBLISHED, DRAFT or ARCHIVED with its own endpoint. A config
names the one it wants with a ``version`` object; without one it runs the latest PUBLISHED version.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from schemas.base import RequestModel, WireModel

# Version numbers are stored in a 32-bit integer column on every backend.
MAX_VERSION_NUMBER = 2_147_483_647


class VersionState(StrEnum):
    PUBLISHED = "PUBLISHED"
    DRAFT = "DRAFT"
    ARCHIVED = "ARCHIVED"


class VersionSelector(RequestModel):
    """The ``version`` object of agentConfig, toolConfig and resourceExecutionConfig."""

    version_state: VersionState = VersionState.PUBLISHED
    version_number: int | None = Field(None, ge=1, le=MAX_VERSION_NUMBER)


class ResolvedVersion(WireModel):
    """The version a handler request runs, sent to the handler under ``version``."""

    version_state: VersionState
    version_number: int
