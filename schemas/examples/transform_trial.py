"""Examples of the transform test request (``/svc_poweruser/custom-webhooks/test-transform``)."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples.ids import WEBHOOK_ID

_ORDER = '{"id": 1042, "total_price": "59.90", "currency": "EUR", "customer": {"email": "ann@example.com"}}'

TEST_TRANSFORM: JsonDict = {
    "examples": [
        {"webhookId": WEBHOOK_ID, "body": _ORDER},
        {
            "webhookConfig": {
                "name": "Paid orders",
                "payloadTransformConfig": {
                    "transformType": "JSONPATH",
                    "jsonPathMappings": {
                        "orderId": "$.id",
                        "amount": "$.total_price",
                        "email": "$.customer.email",
                    },
                },
            },
            "body": _ORDER,
            "headers": {"content-type": "application/json"},
            "queryParams": {"source": "shop"},
        },
    ]
}
