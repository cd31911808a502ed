"""Versioned Kafka record envelopes.

Every record is ``{"type", "v", "id", "createdAt", "payload"}`` so a new version can ship while records of
the old one are still in a topic. Payloads are small: ids and metadata, never bodies.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from schemas.ids import new_id


def _now() -> datetime:
    return datetime.now(UTC)


class Envelope(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    type: str = Field(min_length=1, max_length=100)
    v: int = Field(1, ge=1)
    id: str = Field(default_factory=new_id)
    created_at: datetime = Field(default_factory=_now, alias="createdAt")
    payload: dict[str, Any] = Field(default_factory=dict)

    def to_bytes(self) -> bytes:
        return self.model_dump_json(by_alias=True).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Envelope:
        return cls.model_validate_json(raw)


class UnknownEnvelope(ValueError):
    """A record whose (type, v) this process does not understand: logged and skipped, never crashed on."""
