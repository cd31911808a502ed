"""Table maintenance on the poweruser API: ``POST {base_url}/svc_poweruser/analytics/tables/maintain``.

A company admin compacts a table's small files, expires its snapshots past the retention and removes files
no snapshot names (``sinks/iceberg/maintenance.py``). The call does the work itself, in FastAPI's thread
pool (never on the event loop), and ends in bounded time: compaction takes at most
``SVC_COMPACT_MAX_FILES_PER_CALL`` files and ``SVC_COMPACT_MAX_BYTES_PER_CALL`` bytes per call and says
``moreToCompact`` when it left some. One process runs one call per company at a time, and at most
``_PROCESS_RUNS`` in all, so one tenant's maintenance cannot take the ingress's threads or cores: a call
over those shares is 429 ``QUOTA`` with ``Retry-After``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from fastapi import APIRouter

from core.table_maintenance import ORDER
from ingress.analytics.coded_errors import analytics_error
from ingress.deps import CatalogDep, PoweruserCaller, SessionsDep, SettingsDep
from schemas.maintenance import MaintainRequest, MaintenanceReport
from sinks.db.analytics import tables
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.auto_maintenance import limits_of
from sinks.iceberg.maintenance import maintain
from sinks.iceberg.storage import table_storage

router = APIRouter(prefix="/svc_poweruser/analytics/tables", tags=["analytics administration"])

# Maintenance reads and writes whole files: two at once keep the machine's other work (2 cores) going.
_PROCESS_RUNS = 2
_RETRY_AFTER_SECONDS = 5


class _Runs:
    """The maintenance calls this process is running, by company."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._companies: set[str] = set()

    @contextmanager
    def claim(self, company_id: str) -> Iterator[None]:
        with self._lock:
            if company_id in self._companies:
                raise analytics_error(
                    "QUOTA",
                    "Another maintenance call of your company is running",
                    "Wait for it to finish, then call again",
                    retry_after=_RETRY_AFTER_SECONDS,
                )
            if len(self._companies) >= _PROCESS_RUNS:
                raise analytics_error(
                    "QUOTA",
                    "The service is running as many maintenance calls as it allows",
                    "Call again in a few seconds",
                    retry_after=_RETRY_AFTER_SECONDS,
                )
            self._companies.add(company_id)
        try:
            yield
        finally:
            with self._lock:
                self._companies.discard(company_id)


RUNS = _Runs()


@router.post("/maintain", response_model=MaintenanceReport, response_model_by_alias=True)
def maintain_table(
    body: MaintainRequest,
    caller: PoweruserCaller,
    sessions: SessionsDep,
    catalog: CatalogDep,
    settings: SettingsDep,
) -> MaintenanceReport:
    """Compaction, snapshot expiry and orphan removal on one table; company admins only, as for the other
    table administration calls (the strongest table permission there is)."""
    if not caller.is_admin:
        raise analytics_error("FORBIDDEN", "Only company admins manage analytics tables")
    # A short transaction of its own: the work below takes seconds and must not hold a DB transaction.
    with sessions.begin() as session:
        table = tables.get(session, caller.company_id, body.table_id)
        if table is None:
            raise analytics_error("NOT_FOUND", f"Table {body.table_id} not found")
        table_id = table.id
    actions = [action for action in ORDER if action in set(body.actions)]
    with RUNS.claim(caller.company_id), table_storage():
        handle = iceberg.load_table(catalog, caller.company_id, table_id)
        report = maintain(handle, actions, limits_of(settings), now=datetime.now(UTC), dry_run=body.dry_run)
    return MaintenanceReport(
        files_before=report.files_before,
        files_after=report.files_after,
        snapshots_expired=report.snapshots_expired,
        orphans_removed=report.orphans_removed,
        bytes_reclaimed=report.bytes_reclaimed,
        more_to_compact=report.more_to_compact,
    )
