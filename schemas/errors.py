"""The shared error body: every error answer carries ``errors`` (array of strings)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    errors: list[str] = Field(default_factory=list)
