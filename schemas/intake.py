"""Wire models of the multipart file upload (spec "File upload (for /load-from-s3)")."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, field_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import intake as examples

MIN_PART_BYTES = 5 * 1024 * 1024
MAX_PARTS = 10_000

PartNumber = Annotated[int, Field(ge=1, le=MAX_PARTS)]


class UploadRef(RequestModel):
    upload_id: str = Field(min_length=1, max_length=64)
    s3_key: str = Field(min_length=1, max_length=1024)


class InitiateRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.INITIATE)
    file_name: str = Field(min_length=1, max_length=1024)


class InitiateAnswer(WireModel):
    upload_id: str
    s3_key: str
    s3_uri: str
    errors: list[str] = Field(default_factory=list)


class PartUrlsRequest(UploadRef):
    model_config = ConfigDict(json_schema_extra=examples.PART_URLS)
    part_numbers: list[PartNumber] = Field(min_length=1, max_length=MAX_PARTS)

    @field_validator("part_numbers")
    @classmethod
    def _distinct(cls, numbers: list[int]) -> list[int]:
        if len(set(numbers)) != len(numbers):
            raise ValueError("part numbers must be distinct")
        return numbers


class PartUrlsAnswer(WireModel):
    part_urls: dict[str, str]
    expires_at: str
    errors: list[str] = Field(default_factory=list)


class CompleteRequest(UploadRef):
    model_config = ConfigDict(json_schema_extra=examples.COMPLETE)
    part_e_tags: dict[PartNumber, Annotated[str, Field(min_length=1, max_length=128)]] = Field(
        alias="partETags", min_length=1, max_length=MAX_PARTS
    )


class CompleteAnswer(WireModel):
    s3_uri: str
    size_bytes: int
    errors: list[str] = Field(default_factory=list)


class AbortRequest(UploadRef):
    """Ends an incomplete upload: its parts are deleted and its quota is freed."""

    model_config = ConfigDict(json_schema_extra=examples.ABORT)


class AbortAnswer(WireModel):
    upload_id: str
    state: str
    errors: list[str] = Field(default_factory=list)
