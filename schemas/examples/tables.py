"""Examples of the table administration requests (``/svc_poweruser/analytics/tables/...``) and of the
analytics calls that name a table without running a job: describe, preview, append-rows."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples.ids import ANALYST_EMAIL, ANALYST_USER_ID, CUSTOMERS_TABLE_ID, ORDERS_TABLE_ID

REVENUE_BY_REGION_SQL = (
    "SELECT region, sum(amount) AS revenue, count(*) AS orders FROM orders "
    "WHERE placed_at >= TIMESTAMP '2026-02-01 00:00:00 UTC' "
    "AND placed_at < TIMESTAMP '2026-03-01 00:00:00 UTC' "
    "GROUP BY region ORDER BY revenue DESC"
)

_REVENUE: JsonDict = {"name": "revenue", "sql": "sum(amount)", "description": "Order value in EUR"}

ORDERS: JsonDict = {
    "sqlName": "orders",
    "name": "Orders",
    "description": "One row per order placed in the web shop",
    "grain": "one row per order",
    "columns": [
        {
            "name": "order_id",
            "type": "LONG",
            "nullable": False,
            "description": "Shop order number",
            "synonyms": ["order number"],
        },
        {"name": "customer_id", "type": "LONG", "nullable": False},
        {"name": "region", "type": "STRING", "description": "Shipping region: EU, UK, US or APAC"},
        {"name": "amount", "type": "DECIMAL(12,2)", "description": "Order total in EUR after discounts"},
        {"name": "placed_at", "type": "TIMESTAMPTZ", "nullable": False},
        {"name": "tags", "type": "STRING_LIST", "synonyms": ["labels"]},
        {"name": "customer_email", "type": "STRING", "masked": True, "maskStrategy": "FULL"},
    ],
    "partitionSpec": [{"column": "placed_at", "transform": "MONTH"}],
    "measures": [
        _REVENUE,
        {"name": "order_count", "sql": "count(*)"},
        {"name": "average_order_value", "sql": "avg(amount)", "description": "Mean order total in EUR"},
    ],
    "joins": [
        {
            "sqlName": "customers",
            "on": "orders.customer_id = customers.customer_id",
            "relationship": "MANY_TO_ONE",
        }
    ],
    "verifiedQueries": [
        {
            "id": "revenue-by-region-feb-2026",
            "question": "What was revenue by region in February 2026?",
            "sql": REVENUE_BY_REGION_SQL,
        }
    ],
}

CUSTOMERS: JsonDict = {
    "sqlName": "customers",
    "name": "Customers",
    "description": "Every customer account of the web shop",
    "grain": "one row per customer",
    "columns": [
        {"name": "customer_id", "type": "LONG", "nullable": False},
        {"name": "name", "type": "STRING"},
        {"name": "email", "type": "STRING", "masked": True, "maskStrategy": "FULL"},
        {"name": "phone", "type": "STRING", "masked": True, "maskStrategy": "LAST4"},
        {"name": "country", "type": "STRING", "description": "ISO 3166-1 alpha-2 code"},
        {"name": "segment", "type": "STRING", "description": "retail, wholesale or staff"},
        {"name": "weekly_orders", "type": "INT", "description": "Orders since Monday 00:00 New York time"},
        {"name": "signed_up_on", "type": "DATE"},
    ],
    "partitionSpec": [{"column": "customer_id", "transform": "BUCKET[16]"}],
}

CREATE_TABLE: JsonDict = {"examples": [ORDERS, CUSTOMERS]}

TABLE_ID_ONLY: JsonDict = {"examples": [{"tableId": CUSTOMERS_TABLE_ID}]}

ADD_COLUMN: JsonDict = {
    "examples": [
        {
            "tableId": ORDERS_TABLE_ID,
            "column": {
                "name": "coupon_code",
                "type": "STRING",
                "description": "Discount code used at checkout",
                "synonyms": ["voucher"],
            },
        },
        {
            "tableId": ORDERS_TABLE_ID,
            "column": {"name": "amount", "type": "DECIMAL(14,2)", "description": "Order total in EUR"},
        },
    ]
}

UPDATE_SEMANTICS: JsonDict = {
    "examples": [
        {
            "tableId": ORDERS_TABLE_ID,
            "expectedVersion": 1,
            "description": "One row per order placed in the web shop or the mobile app",
            "columnDescriptions": {"amount": "Order total in EUR after discounts, before shipping"},
            "columnSynonyms": {"region": ["market", "territory"]},
            "measures": [_REVENUE, {"name": "order_count", "sql": "count(*)"}],
        }
    ]
}

GRANT_TABLE: JsonDict = {
    "examples": [
        {
            "tableId": ORDERS_TABLE_ID,
            "userEmail": ANALYST_EMAIL,
            "level": "READ",
            "rowFilter": "region IN ('EU', 'UK') AND placed_at >= DATE '2025-01-01'",
            "hiddenColumns": ["customer_email"],
            "canReveal": False,
        },
        {"tableId": CUSTOMERS_TABLE_ID, "userId": ANALYST_USER_ID, "level": "WRITE", "canReveal": True},
    ]
}

DESCRIBE: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "tableIds": [CUSTOMERS_TABLE_ID], "includeStats": True},
        {"tableId": ORDERS_TABLE_ID},
    ]
}

PREVIEW: JsonDict = {
    "examples": [
        {"tableId": ORDERS_TABLE_ID, "limit": 20},
        {"tableId": CUSTOMERS_TABLE_ID, "limit": 100, "reveal": True},
    ]
}

# Plain JSON values: DECIMAL as a string, TIMESTAMPTZ as ISO-8601; a missing key is null. (No example shows a
# null: FastAPI leaves every null out of the document.)
APPEND_ROWS: JsonDict = {
    "examples": [
        {
            "tableId": ORDERS_TABLE_ID,
            "rows": [
                {
                    "order_id": 100234,
                    "customer_id": 5512,
                    "region": "EU",
                    "amount": "149.90",
                    "placed_at": "2026-03-02T09:14:07Z",
                    "tags": ["gift", "express"],
                    "customer_email": "lena.fischer@example.com",
                },
                {
                    "order_id": 100235,
                    "customer_id": 871,
                    "region": "US",
                    "amount": "23.00",
                    "placed_at": "2026-03-02T09:14:55.120Z",
                    "tags": [],
                },
            ],
        }
    ]
}
