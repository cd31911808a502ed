"""Base of the wire models: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Answers: built in Python by field name, serialised by alias (camelCase)."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, validate_by_alias=True)


class RequestModel(WireModel):
    """Requests: unknown fields are refused so a typo never silently does nothing."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


def iso_utc(moment: datetime | None) -> str | None:
    """The interface's timestamp: ISO-8601 in UTC without an offset, to the millisecond."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        raise ValueError("naive datetime refused: use timezone-aware UTC")
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")
