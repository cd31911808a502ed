"""Outputs of the admin CLI (the contract is these exact JSON objects on stdout)."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from schemas.base import WireModel
from schemas.enums import AccessLevel, HandlerType
from schemas.versions import MAX_VERSION_NUMBER, VersionState

_HTTP_ENDPOINT = re.compile(r"^https?://[^\s/?#]+(/[^\s]*)?$")
_KAFKA_ENDPOINT = re.compile(r"^kafka://[A-Za-z0-9._-]{1,249}$")


class _Out(WireModel):
    pass


class CreatedCompany(_Out):
    company_id: str
    user_id: str
    client_api_key: str
    poweruser_key: str


class CreatedUser(_Out):
    user_id: str
    client_api_key: str
    poweruser_key: str


class CreatedResource(_Out):
    resource_id: str


class CreatedTableId(_Out):
    table_id: str


class Granted(_Out):
    granted: bool = True


def _known_scheme(value: str) -> str:
    if _HTTP_ENDPOINT.match(value) or _KAFKA_ENDPOINT.match(value):
        return value
    raise ValueError("endpoint must be http(s)://host[:port]/path or kafka://<topic>")


DEFAULT_MAX_CONCURRENCY = 16
MAX_CONCURRENCY = 10_000
MAX_PER_SECOND = 100_000.0


class ResourceSpec(_Out):
    """Validated input of create-resource."""

    type: HandlerType
    name: str = Field(min_length=1, max_length=200)
    endpoint: str = Field(min_length=1, max_length=2000)
    # The destination's limits across every worker (docs/webhooks.md#destinations).
    max_concurrency: int = Field(DEFAULT_MAX_CONCURRENCY, ge=1, le=MAX_CONCURRENCY)
    max_per_second: float | None = Field(None, gt=0, le=MAX_PER_SECOND)

    _endpoint = field_validator("endpoint")(_known_scheme)


class ResourceLimitsSpec(_Out):
    """Validated input of update-resource: the limits to change (None leaves one as it is)."""

    resource_id: str
    max_concurrency: int | None = Field(None, ge=1, le=MAX_CONCURRENCY)
    max_per_second: float | None = Field(None, gt=0, le=MAX_PER_SECOND)
    no_rate_limit: bool = False


class ResourceLimits(_Out):
    resource_id: str
    max_concurrency: int
    max_per_second: float | None


class VersionSpec(_Out):
    """Validated input of create-version: the resource's next version, DRAFT unless told."""

    resource_id: str
    endpoint: str = Field(min_length=1, max_length=2000)
    state: VersionState = VersionState.DRAFT

    _endpoint = field_validator("endpoint")(_known_scheme)


class VersionStateSpec(_Out):
    """Validated input of set-version-state."""

    resource_id: str
    version_number: int = Field(ge=1, le=MAX_VERSION_NUMBER)
    state: VersionState


class ResourceVersionOut(_Out):
    """What create-version and set-version-state print."""

    resource_id: str
    version_number: int
    state: VersionState


class GrantSpec(_Out):
    user_id: str
    resource_id: str
    level: AccessLevel


class Principal(_Out):
    """Who a request acts as, once its key is verified."""

    company_id: str
    user_id: str
    email: str
    is_admin: bool
    key_id: str
    key_kind: str
