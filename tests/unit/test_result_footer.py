"""Which row groups of a stored result a page reads (sinks/job_results.Footer): exactly those holding its
rows, checked against every window of a few layouts, empty groups included."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sinks.job_results import Footer


def _footer(sizes: list[int]) -> Footer:
    sink = io.BytesIO()
    schema = pa.schema([("x", pa.int64())])
    with pq.ParquetWriter(sink, schema) as writer:
        start = 0
        for size in sizes:
            writer.write_table(pa.table({"x": list(range(start, start + size))}, schema=schema))
            start += size
    return Footer.of(pq.ParquetFile(pa.BufferReader(sink.getvalue())).metadata)


def _expected(sizes: list[int], offset: int, limit: int) -> list[int]:
    groups, start = [], 0
    for index, size in enumerate(sizes):
        if size and start + size > offset and start < offset + limit:
            groups.append(index)
        start += size
    return groups


@pytest.mark.parametrize("sizes", [[5], [3, 3, 3], [2, 0, 4, 1], [1] * 7, []])
def test_a_page_reads_exactly_the_groups_holding_its_rows(sizes: list[int]) -> None:
    footer = _footer(sizes)
    assert footer.starts[-1] == sum(sizes)
    total = sum(sizes)
    for offset in range(total + 2):
        for limit in range(1, total + 3):
            groups, first_start = footer.groups_for(offset, limit)
            assert groups == _expected(sizes, offset, limit), (offset, limit)
            if groups:
                assert first_start == sum(sizes[: groups[0]]) <= offset
