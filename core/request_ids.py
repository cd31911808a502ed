"""requestId on /query (BigQuery's name): a submission sent again by the same user within the window
answers the job the first one created, never a second run.

What makes two submissions "the same" is the part of the request that shapes the job (the table, the SQL
text as sent and the two limits), held as a digest beside the job so the comparison needs no second copy
of the SQL. ``waitMs`` and ``reveal`` only shape the answer, so a retry may change them.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

WINDOW = timedelta(hours=24)
"""How long a requestId names its job; afterwards the same requestId starts a new one."""


def request_digest(table_id: str, sql: str, max_rows: int | None, max_bytes_scanned: int | None) -> str:
    """SHA-256 (hex) of the job-shaping fields as sent: an absent limit differs from one equal to the
    default, because the default may change between the two submissions."""
    shaped = json.dumps([table_id, sql, max_rows, max_bytes_scanned], separators=(",", ":"))
    return hashlib.sha256(shaped.encode()).hexdigest()
