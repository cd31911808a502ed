"""`svc admin storage`: where the space goes, per kind of record and company, in the object store and on
disk; a readable table, or the same as JSON (`schemas/storage.StorageReport`)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import make_url
from sqlalchemy.orm import Session

from schemas.settings import Settings
from schemas.storage import ObjectAreaUsage, RecordKind, RecordTotal, RecordUsage, StorageReport
from sinks.db import storage_usage
from sinks.db.models import Company
from sinks.exceptions import NotFound
from sinks.objectstore import object_store
from sinks.objectstore.usage import object_usage

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def gather(session: Session, settings: Settings, company_id: str | None) -> StorageReport:
    """The report: every figure summed where it lives (GROUP BY in the database, the store's listing)."""
    if company_id is not None and session.get(Company, company_id) is None:
        raise NotFound(f"company {company_id} not found")
    records = storage_usage.record_usage(session, company_id)
    url = make_url(settings.resolved_database_url)
    database_file = url.database if url.get_backend_name() == "sqlite" else None
    database = storage_usage.database_size(session, database_file)
    on_disk = storage_usage.table_bytes(session)
    objects = object_usage(object_store(settings), company_id)
    return StorageReport(
        company_id=company_id,
        totals=totals(records, on_disk),
        records=records,
        objects=objects,
        database=database,
        counted={kind: storage_usage.counted(kind) for kind in RecordKind},
    )


def totals(records: Iterable[RecordUsage], on_disk: dict[RecordKind, int]) -> list[RecordTotal]:
    """One line per kind of record (every kind, rows or not), in the order of ``RecordKind``."""
    sums = {
        kind: RecordTotal(kind=kind, rows=0, bytes=0, table_bytes=on_disk.get(kind)) for kind in RecordKind
    }
    for record in records:
        total = sums[record.kind]
        total.rows += record.rows
        total.bytes += record.bytes
        total.referenced_bytes += record.referenced_bytes
    return list(sums.values())


def size(value: int | None) -> str:
    """``1536`` -> ``1.5 KiB``; None -> ``-``."""
    if value is None:
        return "-"
    amount = float(value)
    for unit in _UNITS:
        if amount < 1024 or unit == _UNITS[-1]:
            return f"{value} B" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    raise AssertionError("unreachable")


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    line = "  ".join(
        "{:<" + str(width) + "}" if index == 0 else "{:>" + str(width) + "}"
        for index, width in enumerate(widths)
    )
    return [line.format(*header), "  ".join("-" * width for width in widths)] + [
        line.format(*row) for row in rows
    ]


def render(report: StorageReport) -> str:
    """The report as an operator reads it: totals per kind, per company, the object store, the database."""
    scope = f"company {report.company_id}" if report.company_id else "all companies"
    lines = [f"Records in the metadata database ({scope})", ""]
    lines += _table(
        ("kind", "rows", "bytes", "referenced", "table on disk"),
        [
            (
                total.kind.value,
                f"{total.rows:,}",
                size(total.bytes),
                size(total.referenced_bytes),
                size(total.table_bytes),
            )
            for total in report.totals
        ],
    )
    lines += ["", "By company", ""]
    by_company = sorted(report.records, key=lambda usage: (usage.company_id or "", usage.kind.value))
    lines += (
        _table(
            ("company", "kind", "rows", "bytes", "referenced"),
            [
                (
                    usage.company_id or "-",
                    usage.kind.value,
                    f"{usage.rows:,}",
                    size(usage.bytes),
                    size(usage.referenced_bytes),
                )
                for usage in by_company
            ],
        )
        if by_company
        else ["(no records)"]
    )
    lines += ["", "Object store", ""]
    lines += _objects(report.objects)
    database = report.database
    lines += ["", f"Metadata database ({database.backend})", ""]
    if database.backend == "sqlite":
        lines.append(
            f"file {size(database.file_bytes)}, WAL {size(database.wal_bytes)}, "
            f"free pages inside the file {size(database.free_bytes)}"
        )
    else:
        lines.append(f"database {size(database.file_bytes)} (pg_database_size)")
    lines += ["", "What is counted", ""]
    lines.append("bytes: the lengths of each kind's growing columns (not the fixed ones, nor the indexes):")
    lines += [f"  {kind.value}: {what}" for kind, what in report.counted.items()]
    lines.append("referenced: bytes the rows name in the object store; table on disk: pages with indexes")
    return "\n".join(lines) + "\n"


def _objects(objects: list[ObjectAreaUsage]) -> list[str]:
    if not objects:
        return ["(no objects)"]
    areas: dict[str, list[ObjectAreaUsage]] = {}
    for usage in objects:
        areas.setdefault(usage.area, []).append(usage)
    rows: list[tuple[str, ...]] = []
    for area, usages in areas.items():
        name = f"{area}/" if area else "(top level)"
        count, total = sum(u.objects for u in usages), sum(u.bytes for u in usages)
        rows.append((name, "(all)", f"{count:,}", size(total)))
        rows += [(name, u.company_id or "-", f"{u.objects:,}", size(u.bytes)) for u in usages]
    return _table(("area", "company", "objects", "bytes"), rows)
