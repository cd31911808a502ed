"""Wire models of analytics tables: the poweruser table administration API and the client analytics calls."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import tables as examples
from schemas.examples.ids import ORDERS_TABLE_ID

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
    model_config = ConfigDict(json_schema_extra=examples.CREATE_TABLE)
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
    model_config = ConfigDict(json_schema_extra=examples.TABLE_ID_ONLY)
    table_id: str = Field(min_length=1, max_length=100)


class AddColumnRequest(TableIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.ADD_COLUMN)
    column: ColumnSpec


class UpdateSemanticsRequest(TableIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.UPDATE_SEMANTICS)
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
    model_config = ConfigDict(json_schema_extra=examples.GRANT_TABLE)
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
    model_config = ConfigDict(json_schema_extra=examples.DESCRIBE)
    table_id: str = Field(min_length=1, max_length=100)
    table_ids: list[str] = Field(default_factory=list, max_length=50)
    include_stats: bool = False


MAX_PREVIEW_ROWS = 100


class PreviewRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.PREVIEW)
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
    model_config = ConfigDict(json_schema_extra=examples.APPEND_ROWS)
    table_id: str = Field(min_length=1, max_length=100)
    rows: list[Any]  # at most 10,000: checked by the route, which answers ROW_LIMIT


class RowError(WireModel):
    index: int
    message: str


class AppendRowsAnswer(WireModel):
    accepted: int
    load_id: str | None
    errors: list[RowError] = Field(default_factory=list)


# Time travel: a table's snapshots (poweruser /svc_poweruser/analytics/tables/snapshots).

MAX_SNAPSHOTS_PAGE = 1000


class SnapshotsRequest(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"tableId": ORDERS_TABLE_ID}, {"tableId": ORDERS_TABLE_ID, "limit": 20}]
        }
    )
    table_id: str = Field(min_length=1, max_length=100)
    limit: int = Field(100, ge=1, le=MAX_SNAPSHOTS_PAGE, description="Snapshots per page, newest first")
    cursor: str | None = Field(None, max_length=200, description="nextCursor of the previous page")


class TableSnapshot(WireModel):
    # A string: snapshot ids are 64-bit and JSON numbers past 2^53 lose digits in most clients.
    snapshot_id: str = Field(description="For FOR VERSION AS OF; a 64-bit id, written as a string")
    committed_at: str = Field(description="When it was committed (UTC); FOR TIMESTAMP AS OF reads it as is")
    operation: str | None = Field(description="APPEND, OVERWRITE, DELETE or REPLACE")
    added_rows: int | None
    added_files: int | None
    total_rows: int | None


class SnapshotsAnswer(WireModel):
    snapshots: list[TableSnapshot]
    next_cursor: str | None = None
    errors: list[str] = Field(default_factory=list)


# The tables a caller may read (poweruser /svc_poweruser/analytics/tables/get-all).


class ListedColumn(WireModel):
    name: str
    type: str
    nullable: bool
    description: str | None = None
    masked: bool = False
    mask_strategy: MaskStrategy | None = Field(None, description="FULL or LAST4 when masked, else null")
    revealable: bool = Field(False, description="A masked column this caller may reveal (reveal: true)")


class ListedTable(WireModel):
    table_id: str
    sql_name: str
    name: str
    description: str | None = None
    grain: str | None = None
    level: TableLevel = Field(description="The caller's grant: READ or WRITE (WRITE for company admins)")
    row_filtered: bool = Field(description="The caller's grant has a row filter: queries see only its rows")
    semantics_version: int
    columns: list[ListedColumn] = Field(description="The columns the grant shows (hidden ones left out)")


class TablesAnswer(WireModel):
    tables: list[ListedTable]
    errors: list[str] = Field(default_factory=list)


class AnalyticsError(WireModel):
    error_code: str
    errors: list[str]
    hint: str | None = None
