"""`svc admin storage`'s pure parts: sizes for people, totals per kind, the table's shape."""

import pytest

from schemas.storage import DatabaseSize, ObjectAreaUsage, RecordKind, RecordUsage, StorageReport
from svc.storage_report import render, size, totals

pytestmark = pytest.mark.unit


def test_sizes_read_as_people_say_them() -> None:
    assert size(None) == "-"
    assert size(0) == "0 B"
    assert size(1023) == "1023 B"
    assert size(1536) == "1.5 KiB"
    assert size(5 * 1024**3) == "5.0 GiB"
    assert size(3 * 1024**5) == "3072.0 TiB"


def _record(
    kind: RecordKind, company: str | None, rows: int, length: int, referenced: int = 0
) -> RecordUsage:
    return RecordUsage(kind=kind, company_id=company, rows=rows, bytes=length, referenced_bytes=referenced)


def test_totals_name_every_kind_and_add_the_companies() -> None:
    records = [
        _record(RecordKind.WEBHOOK_PAYLOADS, "c1", 2, 10, 100),
        _record(RecordKind.WEBHOOK_PAYLOADS, "c2", 1, 5, 0),
        _record(RecordKind.RATE_COUNTERS, None, 3, 30),
    ]
    found = {total.kind: total for total in totals(records, {RecordKind.JOBS: 4096})}
    assert list(found) == list(RecordKind)
    payloads = found[RecordKind.WEBHOOK_PAYLOADS]
    assert (payloads.rows, payloads.bytes, payloads.referenced_bytes) == (3, 15, 100)
    assert found[RecordKind.JOBS].table_bytes == 4096 and found[RecordKind.JOBS].rows == 0
    assert found[RecordKind.UPLOADS].table_bytes is None


def test_the_table_has_each_section() -> None:
    records = [_record(RecordKind.WEBHOOK_EXECUTIONS, "c1", 4, 2048)]
    report = StorageReport(
        company_id=None,
        totals=totals(records, {}),
        records=records,
        objects=[ObjectAreaUsage(area="results", company_id="c1", objects=2, bytes=3 * 1024**2)],
        database=DatabaseSize(backend="sqlite", file_bytes=8192, wal_bytes=0, free_bytes=4096),
        counted={kind: "x" for kind in RecordKind},
    )
    text = render(report)
    for expected in (
        "Records in the metadata database (all companies)",
        "webhook_executions",
        "2.0 KiB",
        "results/",
        "3.0 MiB",
        "free pages inside the file 4.0 KiB",
        "What is counted",
    ):
        assert expected in text
    empty = render(report.model_copy(update={"records": [], "objects": [], "company_id": "c9"}))
    assert "(no records)" in empty and "(no objects)" in empty and "company c9" in empty
