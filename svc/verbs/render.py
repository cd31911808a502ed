"""Query results as text: an aligned table, CSV or JSON (pure functions over the result's pages)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

MAX_CELL = 60


def cell_text(value: Any) -> str:
    """A value as one cell: null as empty, lists and objects as JSON, everything else as its text."""
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def as_table(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """Columns padded to their widest cell (cut at ``MAX_CELL`` characters), a rule under the header, and a
    count line."""
    cells = [[cell_text(row.get(name)) for name in columns] for row in rows]
    cells = [
        [text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…" for text in line] for line in cells
    ]
    widths = [max([len(name), *(len(line[i]) for line in cells)]) for i, name in enumerate(columns)]
    lines = [
        "  ".join(name.ljust(width) for name, width in zip(columns, widths, strict=True)).rstrip(),
        "  ".join("-" * width for width in widths),
    ]
    lines += ["  ".join(t.ljust(w) for t, w in zip(line, widths, strict=True)).rstrip() for line in cells]
    lines.append(f"({len(rows)} row{'' if len(rows) == 1 else 's'})")
    return "\n".join(lines) + "\n"


def as_csv(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """A header row, then one line per row, values as ``cell_text`` writes them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([cell_text(row.get(name)) for name in columns] for row in rows)
    return out.getvalue()


def as_json(job_id: str, columns: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]]) -> str:
    return (
        json.dumps({"jobId": job_id, "columns": list(columns), "rows": list(rows)}, ensure_ascii=False) + "\n"
    )
