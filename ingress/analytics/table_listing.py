"""The tables a caller may read: ``POST {base_url}/svc_poweruser/analytics/tables/get-all``.

Any poweruser key: a company admin sees every table of the company, a member those their grants name, each
with the columns the grant shows (hidden ones left out, masked ones marked). It reads the metadata database
only, never table data, so it costs no scan allowance.
"""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter

from ingress.deps import DbSession, PoweruserCaller
from schemas.identity import EmptyRequest
from schemas.tables import ListedColumn, ListedTable, TableLevel, TablesAnswer
from sinks.db.analytics import tables
from sinks.db.models import AnalyticsTable

router = APIRouter(prefix="/svc_poweruser/analytics/tables", tags=["analytics administration"])


def listed_column(column: dict[str, Any], access: tables.TableAccess) -> ListedColumn:
    masked = bool(column["masked"])
    return ListedColumn(
        name=column["name"],
        type=column["type"],
        nullable=column["nullable"],
        description=column.get("description"),
        masked=masked,
        mask_strategy=(column.get("maskStrategy") or "FULL") if masked else None,
        revealable=masked and access.can_reveal,
    )


def listed_table(table: AnalyticsTable, access: tables.TableAccess) -> ListedTable:
    return ListedTable(
        table_id=table.id,
        sql_name=table.sql_name,
        name=table.name,
        description=table.description,
        grain=table.grain,
        level=cast(TableLevel, access.level),  # readable() answers only granted tables
        row_filtered=access.row_filter is not None,
        semantics_version=table.semantics_version,
        columns=[listed_column(column, access) for column in tables.visible_columns(table, access)],
    )


@router.post("/get-all", response_model=TablesAnswer, response_model_by_alias=True)
def get_all_tables(
    caller: PoweruserCaller, session: DbSession, _body: EmptyRequest | None = None
) -> TablesAnswer:
    """The tables the caller may read, by SQL name, each with its columns as the caller's grant shows them."""
    found = tables.readable(session, caller.company_id, caller.user_id, caller.is_admin)
    return TablesAnswer(tables=[listed_table(table, access) for table, access in found])
