"""Body and answer of the whoami endpoints (the one call that tells a key holder who the key acts as)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from schemas.base import RequestModel, WireModel


class EmptyRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{}]})


class WhoAmI(WireModel):
    company_id: str
    user_id: str
    email: str
    is_admin: bool
    key_type: str
    errors: list[str] = Field(default_factory=list)
