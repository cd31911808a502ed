"""The ids, names and keys the examples share, so that one example's table or upload is the next one's."""

from __future__ import annotations

from typing import Final

# UUIDv7 ids as the service issues them, their times in the order the story happened.
COMPANY_ID: Final = "019a493462777b0691960fc7122d4fce"
ADMIN_USER_ID: Final = "019a493462837cf88c7b381f018e6ed5"
ANALYST_USER_ID: Final = "019afe45f76f742dbbca0e4a509544df"
TOOL_ID: Final = "019b21653f4671b097d7d4c6a45d9fbe"
AGENT_ID: Final = "019b21688648762db7d0b79d11100c71"
ORDERS_TABLE_ID: Final = "019bb1545f8c779b8ca7c36ce20b581d"
CUSTOMERS_TABLE_ID: Final = "019bb154c30d714985b3eec2a89465ed"
WEBHOOK_ID: Final = "019c1f278d2a77e2b6fc6aa8982f2525"
SCHEDULED_EVENT_ID: Final = "019c416858a273c5891627ba8885b5f8"
OLDER_JOB_ID: Final = "019ca00d8b7e7284b5b5d58c81721353"
QUERY_JOB_ID: Final = "019cadd467c07a2289538e4295772d96"
UPLOAD_ID: Final = "019cae59801978b9ae3e77f2817d525e"
ALERT_RULE_ID: Final = "019cb1d2a4e67c3d8e9f0a1b2c3d4e5f"
ALERT_ID: Final = "019cb2f04a1b7d2e9f3c4b5a6d7e8f90"

ANALYST_EMAIL: Final = "priya.natarajan@example.com"
SUPPORT_LEAD_EMAIL: Final = "marco.rossi@example.com"

UPLOAD_FILE_NAME: Final = "orders-2026-02.csv"
UPLOAD_S3_KEY: Final = f"uploads/{COMPANY_ID}/{UPLOAD_ID}/{UPLOAD_FILE_NAME}"
# The local object store's default bucket (SVC_OBJECT_STORE_BUCKET).
UPLOAD_S3_URI: Final = f"s3://svc-local/{UPLOAD_S3_KEY}"
