"""Examples of the custom-webhook management requests (``/svc_poweruser/custom-webhooks/...``)."""

from __future__ import annotations

from pydantic.config import JsonDict

from schemas.examples.ids import (
    AGENT_ID,
    ANALYST_EMAIL,
    ANALYST_USER_ID,
    ORDERS_TABLE_ID,
    SUPPORT_LEAD_EMAIL,
    TOOL_ID,
    WEBHOOK_ID,
)

# The shop signs each delivery's raw body with HMAC-SHA256 (base64) in X-Shop-Hmac-Sha256.
_SHOP_SIGNATURE_CHECK = """const secret = 'YOUR_SHOP_WEBHOOK_SECRET';
const received = svc.header(headers, 'X-Shop-Hmac-Sha256') || '';
if (!svc.timingSafeEqual(received, svc.hmacSha256Base64(secret, body))) {
  return { valid: false, message: 'Invalid shop signature.' };
}
return true;"""

_ORDER_TO_VARIABLES = """const order = JSON.parse(payload);
return {
  orderId: order.id,
  region: order.shipping_address.region,
  amount: order.total_price,
  placedAt: order.created_at,
};"""

CREATE_WEBHOOK: JsonDict = {
    "examples": [
        {
            "webhookConfig": {
                "name": "Paid orders to Slack",
                "description": "Posts every paid shop order to the #sales channel",
                "validationConfig": {"enableValidation": True, "validationScript": _SHOP_SIGNATURE_CHECK},
                "payloadTransformConfig": {
                    "transformType": "JSONPATH",
                    "jsonPathMappings": {
                        "orderId": "$.id",
                        "amount": "$.total_price",
                        "currency": "$.currency",
                        "customerName": "$.customer.first_name",
                    },
                },
                "resourceExecutionConfig": {
                    "resourceType": "TOOL",
                    "resourceId": TOOL_ID,
                    "variables": {
                        "channel": "#sales",
                        "text": "Order @@{orderId} from @@{customerName} paid: @@{amount} @@{currency}",
                    },
                    "environmentVariables": {"LOG_LEVEL": "info"},
                },
                "executionSettings": {"timeoutSeconds": 60, "maxRetries": 5, "retryDelaySeconds": 10},
                "secretHeaders": ["X-Shop-Hmac-Sha256"],
                # The shop retries a delivery it got no answer for with the same Idempotency-Key.
                "deduplication": {"enabled": True, "windowSeconds": 3600},
            }
        },
        {
            "webhookConfig": {
                "name": "Paid orders to the orders table",
                "description": "Inserts one row into the orders analytics table per paid order",
                "payloadTransformConfig": {
                    "transformType": "SVC_SCRIPT",
                    "transformScript": _ORDER_TO_VARIABLES,
                },
                "resourceExecutionConfig": {
                    "resourceType": "SVCDB",
                    "svcDbConfig": {
                        "operation": "INSERT",
                        "targetTableId": ORDERS_TABLE_ID,
                        "values": {
                            "order_id": {"columnType": "NUMBER", "integerValue": "@@{orderId}"},
                            "region": {"columnType": "SHORT_TEXT", "textValue": "@@{region}"},
                            "amount": {"columnType": "SHORT_TEXT", "textValue": "@@{amount}"},
                            "placed_at": {"columnType": "DATE", "textValue": "@@{placedAt}"},
                        },
                        "description": "One row per paid order",
                    },
                },
            }
        },
        {"webhookConfig": {"name": "GitHub pushes"}},
    ]
}

# webhookConfig.deduplication: remember each delivery's Idempotency-Key (or provider delivery id) for 6 hours.
DEDUPLICATION: JsonDict = {"examples": [{"enabled": True, "windowSeconds": 21600}]}

WEBHOOK_ID_ONLY: JsonDict = {"examples": [{"webhookId": WEBHOOK_ID}]}

UPDATE_WEBHOOK: JsonDict = {
    "examples": [
        {
            "webhookId": WEBHOOK_ID,
            "isEnabled": True,
            "webhookConfig": {
                "name": "Support tickets to the triage agent",
                "description": "Every new helpdesk ticket is triaged by the support agent",
                "payloadTransformConfig": {
                    "transformType": "JSONPATH",
                    "jsonPathMappings": {
                        "subject": "$.ticket.subject",
                        "body": "$.ticket.description",
                        "priority": "$.ticket.priority",
                        "requester": "$.ticket.requester.email",
                    },
                },
                "resourceExecutionConfig": {
                    "resourceType": "AGENT",
                    "resourceId": AGENT_ID,
                    "userMessage": "Triage this ticket from @@{requester} (priority @@{priority}): "
                    "@@{subject}\n\n@@{body}",
                    "promptTemplateVariables": {"team": "billing", "language": "en"},
                    "version": {"versionState": "PUBLISHED"},
                },
                "executionSettings": {"timeoutSeconds": 300, "maxRetries": 3, "retryDelaySeconds": 5},
            },
        },
        {"webhookId": WEBHOOK_ID, "isEnabled": False, "webhookConfig": {"name": "GitHub pushes (paused)"}},
    ]
}

SHARE_WEBHOOK: JsonDict = {
    "examples": [
        {"webhookId": WEBHOOK_ID, "level": "COMPANY", "accessLevel": "READ"},
        {
            "webhookId": WEBHOOK_ID,
            "level": "SPECIFIC_MEMBER",
            "usersToAdd": [
                {"userEmail": SUPPORT_LEAD_EMAIL, "accessLevel": "WRITE"},
                {"userId": ANALYST_USER_ID, "accessLevel": "READ"},
            ],
        },
        {"webhookId": WEBHOOK_ID, "level": "PRIVATE", "usersToRemove": [{"userEmail": ANALYST_EMAIL}]},
    ]
}

EXECUTION_HISTORY: JsonDict = {
    "examples": [
        {"webhookId": WEBHOOK_ID, "status": "FAILED", "page": 0, "size": 50},
        {"webhookId": WEBHOOK_ID, "page": 2, "size": 20},
        {
            "webhookId": WEBHOOK_ID,
            "status": "FAILED",
            "from": "2026-12-01T00:00:00Z",
            "to": "2026-12-02T00:00:00+01:00",
            "bodyContains": "ord_0000012345",
            "size": 25,
        },
        {"webhookId": WEBHOOK_ID, "executionId": "019c4a1d2f6e7b51a3c08e9d4f2b6a17", "size": 100},
    ]
}

DELIVERY_STATS: JsonDict = {
    "examples": [
        {"webhookId": WEBHOOK_ID, "window": "HOUR"},
        {"webhookId": WEBHOOK_ID, "window": "DAY"},
    ]
}
