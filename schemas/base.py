"""Base of the wire models: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Answers: built in Python by field name, serialised by alias (camelCase)."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, validate_by_alias=True)


class RequestModel(WireModel):
    """Requests: unknown fields are refused so a typo never silently does nothing."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)
