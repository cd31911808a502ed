"""Examples of the analytics job requests (``/clients/svcdb/analytics/...``): estimate, query, the calls that
follow a job, and load-from-s3."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples.ids import ORDERS_TABLE_ID, QUERY_JOB_ID, UPLOAD_S3_URI
from schemas.examples.tables import REVENUE_BY_REGION_SQL

_SEGMENT_REVENUE_SQL = (
    "WITH monthly AS (\n"
    "  SELECT c.segment, date_trunc('month', o.placed_at) AS month, sum(o.amount) AS revenue,\n"
    "         approx_distinct(o.customer_id) AS buyers\n"
    "  FROM orders o JOIN customers c ON o.customer_id = c.customer_id\n"
    "  WHERE o.placed_at >= TIMESTAMP '2026-01-01 00:00:00 UTC'\n"
    "  GROUP BY 1, 2\n"
    ")\n"
    "SELECT segment, format_datetime(month, 'yyyy-MM') AS month, revenue, buyers\n"
    "FROM monthly ORDER BY month, segment"
)

# The nextCursor of a previous /jobs page, as the service issued it (opaque to clients).
_NEXT_CURSOR = "MjAyNi0wMi0yN1QxNzowMjo0OC4xOTAwMDArMDA6MDB8MDE5Y2EwMGQ4YjdlNzI4NGI1YjVkNThjODE3MjEzNTM="

ESTIMATE: JsonDict = {"examples": [{"tableId": ORDERS_TABLE_ID, "sql": REVENUE_BY_REGION_SQL}]}

QUERY: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "sql": REVENUE_BY_REGION_SQL, "waitMs": 5000},
        {
            "tableId": ORDERS_TABLE_ID,
            "sql": _SEGMENT_REVENUE_SQL,
            "maxRows": 10000,
            "maxBytesScanned": 1073741824,
            "waitMs": 20000,
            "reveal": False,
            "requestId": "monthly-segment-revenue:2026-02-27",
        },
    ]
}

JOB: JsonDict = {"examples": [{"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID}]}

JOB_STATUS: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID, "waitMs": 10000},
        {"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID},
    ]
}

JOB_RESULTS: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID, "page": 1, "pageSize": 500},
        {"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID, "page": 0, "pageSize": 100, "reveal": True},
        {
            "tableId": ORDERS_TABLE_ID,
            "jobId": QUERY_JOB_ID,
            "page": 0,
            "pageSize": 100,
            "revealRow": 42,
            "revealColumn": "customer_email",
        },
    ]
}

JOBS: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "kind": "QUERY", "state": "SUCCEEDED", "mine": True, "limit": 50},
        {"tableId": ORDERS_TABLE_ID, "limit": 25, "cursor": _NEXT_CURSOR},
    ]
}

DOWNLOAD_URL: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID, "format": "CSV"},
        {"tableId": ORDERS_TABLE_ID, "jobId": QUERY_JOB_ID, "format": "PARQUET", "reveal": True},
    ]
}

LOAD_FROM_S3: JsonDict = {
    "examples": [
        {
            "tableId": ORDERS_TABLE_ID,
            "sourceUris": [UPLOAD_S3_URI],
            "format": "CSV",
            "mode": "APPEND",
            "csv": {
                "delimiter": ";",
                "header": True,
                "nullString": "NA",
                "quote": '"',
                "dateFormat": "%d.%m.%Y",
                "timestampFormat": "%d.%m.%Y %H:%M:%S%z",
            },
            "columnMapping": {
                "Order No": "order_id",
                "Customer": "customer_id",
                "Region": "region",
                "Total (EUR)": "amount",
                "Placed": "placed_at",
            },
        },
        {"tableId": ORDERS_TABLE_ID, "sourceUris": [UPLOAD_S3_URI], "mode": "REPLACE"},
    ]
}
