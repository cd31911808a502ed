"""Each provider's delivery id, the key later used to drop a provider's retries of a delivery."""

from __future__ import annotations

import pytest

from core.signatures import provider_delivery_id
from schemas.verification import VerificationProvider as P
from tests.fixtures.signatures import GITHUB_SECRET, JSON_BODY, config, github_headers

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("provider", "headers", "body", "expected"),
    [
        (
            P.GITHUB,
            {"X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958"},
            b"{}",
            "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        ),
        (
            P.STRIPE,
            {},
            b'{"id": "evt_1NG8Du2eZvKYlo2CUI79vXWy", "object": "event"}',
            "evt_1NG8Du2eZvKYlo2CUI79vXWy",
        ),
        (
            P.STANDARD_WEBHOOKS,
            {"webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek"},
            b"{}",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
        ),
        (P.STANDARD_WEBHOOKS, {"svix-id": "msg_svix"}, b"{}", "msg_svix"),
        (P.SLACK, {}, b'{"type": "event_callback", "event_id": "Ev0PV52K21"}', "Ev0PV52K21"),
        (P.SLACK, {}, b'{"type": "url_verification", "event_id": "Ev0PV52K21"}', None),
        (P.SLACK, {}, b"token=x&command=%2Fweather", None),
        (
            P.SHOPIFY,
            {"X-Shopify-Webhook-Id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043"},
            b"{}",
            "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
        ),
        (P.GITLAB, {"Idempotency-Key": "908a6d9e", "X-Gitlab-Event-UUID": "e1"}, b"{}", "908a6d9e"),
        (P.GITLAB, {"X-Gitlab-Event-UUID": "e1"}, b"{}", "e1"),
        (P.TWILIO, {"I-Twilio-Idempotency-Token": "4d8b3c1e-idem"}, b"a=b", "4d8b3c1e-idem"),
        (P.LINEAR, {"Linear-Delivery": "234d1a4e"}, b'{"webhookId": "not-a-delivery"}', "234d1a4e"),
        (P.LINEAR, {}, b'{"webhookId": "not-a-delivery"}', None),
        (
            P.PADDLE,
            {},
            b'{"event_id": "evt_01", "notification_id": "ntf_01h8bkrfe7w1vwf8xmytwn51e7"}',
            "ntf_01h8bkrfe7w1vwf8xmytwn51e7",
        ),
        (P.HMAC_SHA256, {"X-Request-Id": "r1"}, b'{"id": "x"}', None),
        (P.GITHUB, {}, b"{}", None),
        (P.GITHUB, {"X-GitHub-Delivery": "x" * 201}, b"{}", None),
        (P.GITHUB, {"X-GitHub-Delivery": "has space"}, b"{}", None),
        (P.STRIPE, {}, b'{"id": 42}', None),
        (P.STRIPE, {}, b"not json", None),
        (P.PADDLE, {}, b"[1, 2]", None),
        (P.PADDLE, {}, b'{"a":' * 100_000 + b"1" + b"}" * 100_000, None),
    ],
)
def test_provider_delivery_id(
    provider: P, headers: dict[str, str], body: bytes, expected: str | None
) -> None:
    assert provider_delivery_id(provider, headers, body) == expected


def test_provider_delivery_id_takes_a_config() -> None:
    cfg = config(P.GITHUB, GITHUB_SECRET)
    assert provider_delivery_id(cfg, github_headers(JSON_BODY), JSON_BODY) == "72d3162e-cc78"
