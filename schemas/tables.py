"""Wire models of analytics tables: the poweruser table administration API and the client analytics calls."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from schemas.base import RequestModel, WireModel

SQL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
COLUMN_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
TableLevel = Literal["READ", "WRITE"]
MaskStrategy = Literal["FULL", "LAST4"]


class ColumnSpec(RequestModel):
    name: str
    type: str = Field(min_length=1, max_length=40)
    nullable: bool = True
    description: str | None = Field(None, max_length=2000)
    synonyms: list[str] = Field(default_factory=list, max_length=50)
    masked: bool = False
    mask_strategy: MaskStrategy = "FULL"

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not COLUMN_NAME.match(name):
            raise ValueError("column names are lower-case letters, digits and _, starting with a letter")
        return name


class PartitionField(RequestModel):
    column: str
    transform: str = Field(min_length=1, max_length=40)


class Measure(RequestModel):
    name: str = Field(min_length=1, max_length=100)
    sql: str = Field(min_length=1, max_length=10_000)
    description: str | None = Field(None, max_length=2000)


class Join(RequestModel):
    sql_name: str = Field(min_length=1, max_length=63)
    on: str = Field(min_length=1, max_length=2000)
    relationship: Literal["MANY_TO_ONE", "ONE_TO_ONE", "ONE_TO_MANY", "MANY_TO_MANY"] = "MANY_TO_ONE"


class VerifiedQuery(RequestModel):
    id: str | None = Field(None, max_length=100)
    question: str = Field(min_length=1, max_length=2000)
    sql: str = Field(min_length=1, max_length=100_000)


class CreateTableRequest(RequestModel):
    sql_name: str
    name: str = Field(min_length=1, max_length=200)
    description: str | None = Field(None, max_length=5000)
    grain: str | None = Field(None, max_length=2000)
    columns: list[ColumnSpec] = Field(min_length=1, max_length=500)
    partition_spec: list[PartitionField] = Field(default_factory=list, max_length=4)
    measures: list[Measure] = Field(default_factory=list, max_length=200)
    joins: list[Join] = Field(default_factory=list, max_length=100)
    verified_queries: list[VerifiedQuery] = Field(default_factory=list, max_length=200)

    @field_validator("sql_name")
    @classmethod
    def _sql_name(cls, name: str) -> str:
        if not SQL_NAME.match(name):
            raise ValueError("sqlName is lower-case letters, digits and _, starting with a letter (max 63)")
        return name

    @model_validator(mode="after")
    def _unique_columns(self) -> CreateTableRequest:
        names = [column.name for column in self.columns]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"duplicate column names: {', '.join(duplicates)}")
        return self


class TableIdRequest(RequestModel):
    table_id: str = Field(min_length=1, max_length=100)


class AddColumnRequest(TableIdRequest):
    column: ColumnSpec


class UpdateSemanticsRequest(TableIdRequest):
    expected_version: int = Field(ge=1)
    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = Field(None, max_length=5000)
    grain: str | None = Field(None, max_length=2000)
    column_descriptions: dict[str, str] | None = None
    column_synonyms: dict[str, list[str]] | None = None
    measures: list[Measure] | None = None
    joins: list[Join] | None = None
    verified_queries: list[VerifiedQuery] | None = None


class GrantTableRequest(TableIdRequest):
    user_id: str | None = Field(None, max_length=100)
    user_email: str | None = Field(None, max_length=320)
    level: TableLevel
    row_filter: str | None = Field(None, max_length=10_000)
    hidden_columns: list[str] = Field(default_factory=list, max_length=500)
    can_reveal: bool = False

    @model_validator(mode="after")
    def _identified(self) -> GrantTableRequest:
        if not self.user_id and not self.user_email:
            raise ValueError("userId or userEmail is required")
        return self


class CreatedTable(WireModel):
    table_id: str
    semantics_version: int
    errors: list[str] = Field(default_factory=list)


class Updated(WireModel):
    updated: bool = True
    semantics_version: int | None = None
    errors: list[str] = Field(default_factory=list)


# Client analytics calls (spec "B. Analytics").


class DescribeRequest(RequestModel):
    table_id: str = Field(min_length=1, max_length=100)
    table_ids: list[str] = Field(default_factory=list, max_length=50)
    include_stats: bool = False


MAX_PREVIEW_ROWS = 100


class PreviewRequest(RequestModel):
    table_id: str = Field(min_length=1, max_length=100)
    # No `le`: a count over the cap is 413 ROW_LIMIT, checked by the route, not a 400.
    limit: int = Field(
        50,
        ge=1,
        description=f"Rows to return, 1 to {MAX_PREVIEW_ROWS} (default 50); "
        f"more than {MAX_PREVIEW_ROWS} answers 413 ROW_LIMIT",
    )
    reveal: bool = False


class AppendRowsRequest(RequestModel):
    table_id: str = Field(min_length=1, max_length=100)
    rows: list[Any]  # at most 10,000: checked by the route, which answers ROW_LIMIT


class RowError(WireModel):
    index: int
    message: str


class AppendRowsAnswer(WireModel):
    accepted: int
    load_id: str | None
    errors: list[RowError] = Field(default_factory=list)


class AnalyticsError(WireModel):
    error_code: str
    errors: list[str]
    hint: str | None = None
