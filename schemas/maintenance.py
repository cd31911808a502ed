"""Wire models of table maintenance: ``POST /svc_poweruser/analytics/tables/maintain`` (issue 26)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field

from schemas.base import RequestModel, WireModel
from schemas.examples.ids import ORDERS_TABLE_ID


class MaintenanceAction(StrEnum):
    COMPACT = "COMPACT"
    EXPIRE_SNAPSHOTS = "EXPIRE_SNAPSHOTS"
    REMOVE_ORPHANS = "REMOVE_ORPHANS"


class MaintainRequest(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"tableId": ORDERS_TABLE_ID, "actions": ["COMPACT"]},
                {
                    "tableId": ORDERS_TABLE_ID,
                    "actions": ["COMPACT", "EXPIRE_SNAPSHOTS", "REMOVE_ORPHANS"],
                    "dryRun": True,
                },
            ]
        }
    )
    table_id: str = Field(min_length=1, max_length=100)
    actions: list[MaintenanceAction] = Field(
        min_length=1,
        max_length=3,
        description="Any of COMPACT, EXPIRE_SNAPSHOTS, REMOVE_ORPHANS; always run in that order",
    )
    dry_run: bool = Field(False, description="Report what would be done and change nothing")


class MaintenanceReport(WireModel):
    files_before: int = Field(description="Data files of the current snapshot before the call")
    files_after: int = Field(description="Data files of the current snapshot after it (dry run: predicted)")
    snapshots_expired: int
    orphans_removed: int
    bytes_reclaimed: int = Field(description="Bytes of the files deleted: expired snapshots' and orphans")
    more_to_compact: bool = Field(
        description="Small files were left for another call (the per-call caps), or the compaction yielded"
    )
    errors: list[str] = Field(default_factory=list)
