"""Signature verification of the providers whose signature covers a timestamp: Stripe, Standard Webhooks (as
Svix sends it), Slack, Paddle Billing and Linear. Each has a documented sample, a forged one, a stale one."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from schemas.verification import VerificationProvider as P
from tests.fixtures.signatures import (
    JSON_BODY,
    LINEAR_SECRET,
    NOW_S,
    PADDLE_SECRET,
    SLACK_SECRET,
    STANDARD_KEY,
    STANDARD_SECRET,
    STRIPE_SECRET,
    check,
    config,
    hmac_hex,
    linear_body,
    linear_headers,
    paddle_headers,
    rejected,
    slack_headers,
    standard_headers,
    stripe_headers,
)

pytestmark = pytest.mark.unit


# --- Stripe ------------------------------------------------------------------------------------------------
# https://docs.stripe.com/webhooks#verify-manually: split Stripe-Signature on "," then "="; t is the
# timestamp, v1 the signature(s); HMAC-SHA256 of "{t}.{payload}" with the endpoint's secret; compare; check
# the age (stripe-python's Webhook.DEFAULT_TOLERANCE is 300 s).


def test_stripe_sample_and_rotation() -> None:
    cfg = config(P.STRIPE, STRIPE_SECRET)
    check(cfg, stripe_headers(JSON_BODY))
    # During a secret rotation Stripe sends one v1 per secret; any one matching is enough.
    old = stripe_headers(JSON_BODY, secret="whsec_old")["Stripe-Signature"]
    new = stripe_headers(JSON_BODY)["Stripe-Signature"].split(",")[1]
    check(cfg, {"Stripe-Signature": f"{old},{new}"})


def test_stripe_forged_stale_and_malformed() -> None:
    cfg = config(P.STRIPE, STRIPE_SECRET)
    assert "no Stripe-Signature v1" in rejected(cfg, stripe_headers(JSON_BODY, secret="whsec_other"))
    assert "no Stripe-Signature v1" in rejected(cfg, stripe_headers(JSON_BODY), JSON_BODY.replace(b"1", b"2"))
    assert "over the tolerance of 300 s" in rejected(cfg, stripe_headers(JSON_BODY, at=NOW_S - 301))
    assert "in the future" in rejected(cfg, stripe_headers(JSON_BODY, at=NOW_S + 301))
    check(cfg, stripe_headers(JSON_BODY, at=NOW_S - 300))
    # A replayed header with its t moved forward no longer matches the signature.
    replay = stripe_headers(JSON_BODY, at=NOW_S - 3600)["Stripe-Signature"].replace(
        str(NOW_S - 3600), str(NOW_S)
    )
    assert "no Stripe-Signature v1" in rejected(cfg, {"Stripe-Signature": replay})
    assert "not key=value" in rejected(cfg, {"Stripe-Signature": "bad_header"})
    header = stripe_headers(JSON_BODY)["Stripe-Signature"]
    assert "exactly one t=" in rejected(cfg, {"Stripe-Signature": f"t={NOW_S},{header}"})
    only_v0 = f"t={NOW_S},v0={hmac_hex(STRIPE_SECRET, f'{NOW_S}.'.encode() + JSON_BODY)}"
    assert "no v1 signature" in rejected(cfg, {"Stripe-Signature": only_v0})


def test_stripe_tolerance_is_configurable() -> None:
    strict = config(P.STRIPE, STRIPE_SECRET, toleranceSeconds=5)
    check(strict, stripe_headers(JSON_BODY, at=NOW_S - 5))
    assert "tolerance of 5 s" in rejected(strict, stripe_headers(JSON_BODY, at=NOW_S - 6))


# --- Standard Webhooks -------------------------------------------------------------------------------------


def test_standard_webhooks_reference_example() -> None:
    # The reference library's test_sign_function (standard-webhooks/standard-webhooks,
    # libraries/python/tests/test_webhooks.py; the same values are Svix's documented example): this secret,
    # id, timestamp and payload sign to this header value.
    cfg = config(P.STANDARD_WEBHOOKS, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    headers = {
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    at = datetime.fromtimestamp(1614265330, tz=UTC)
    check(cfg, headers, b'{"test": 2432232314}', now=at)
    # Svix's default header names carry the same scheme.
    svix = {name.replace("webhook-", "svix-"): value for name, value in headers.items()}
    check(cfg, svix, b'{"test": 2432232314}', now=at)
    # The reference test's invalid signature (one character changed).
    forged = headers | {"webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="}
    assert "no webhook-signature v1" in rejected(cfg, forged, b'{"test": 2432232314}', now=at)
    assert "over the tolerance" in rejected(
        cfg, headers, b'{"test": 2432232314}', now=at + timedelta(seconds=301)
    )


def test_standard_webhooks_sample_forged_stale() -> None:
    # https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md: sign
    # "{msg_id}.{timestamp}.{payload}" with the base64-decoded secret; a space-delimited "v1,<base64>" list.
    cfg = config(P.STANDARD_WEBHOOKS, STANDARD_SECRET)
    check(cfg, standard_headers(JSON_BODY))
    signature = standard_headers(JSON_BODY)["webhook-signature"]
    # An asymmetric entry and a signature made with a retired key come first; the current one still counts.
    retired = "v1," + base64.b64encode(b"old" * 11).decode()
    rotated = standard_headers(JSON_BODY) | {
        "webhook-signature": f"v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw== {retired} {signature}"
    }
    check(cfg, rotated)
    assert "no webhook-signature v1" in rejected(cfg, standard_headers(JSON_BODY, key=bytes(32)))
    assert "no webhook-signature v1" in rejected(cfg, standard_headers(JSON_BODY), JSON_BODY + b"\n")
    moved = standard_headers(JSON_BODY) | {"webhook-id": "msg_other"}
    assert "no webhook-signature v1" in rejected(cfg, moved)
    assert "over the tolerance" in rejected(cfg, standard_headers(JSON_BODY, at=NOW_S - 301))
    assert "in the future" in rejected(cfg, standard_headers(JSON_BODY, at=NOW_S + 301))
    only_asymmetric = standard_headers(JSON_BODY) | {"webhook-signature": "v1a,AAAA"}
    assert "no v1 signature" in rejected(cfg, only_asymmetric)


def test_standard_webhooks_never_mixes_header_families() -> None:
    cfg = config(P.STANDARD_WEBHOOKS, STANDARD_SECRET)
    headers = standard_headers(JSON_BODY)
    mixed = {"webhook-id": headers["webhook-id"], "svix-timestamp": headers["webhook-timestamp"]}
    mixed["svix-signature"] = headers["webhook-signature"]
    assert "missing webhook-timestamp" in rejected(cfg, mixed)
    assert "not a Unix time" in rejected(cfg, headers | {"webhook-timestamp": "1.5e9"})


# --- Slack -------------------------------------------------------------------------------------------------

SLACK_DOC_BODY = (
    b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
    b"&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
    b"&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
    b"&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
)


def test_slack_documented_example() -> None:
    # https://docs.slack.dev/authentication/verifying-requests-from-slack/ (formerly
    # api.slack.com/authentication/verifying-requests-from-slack): this signing secret, timestamp and body
    # sign to this X-Slack-Signature (also python-slack-sdk's test vector).
    cfg = config(P.SLACK, SLACK_SECRET)
    headers = {
        "X-Slack-Request-Timestamp": "1531420618",
        "X-Slack-Signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    }
    at = datetime.fromtimestamp(1531420618, tz=UTC)
    check(cfg, headers, SLACK_DOC_BODY, now=at)
    assert "does not match" in rejected(cfg, headers, SLACK_DOC_BODY + b"------", now=at)
    assert "over the tolerance" in rejected(
        cfg, headers, SLACK_DOC_BODY, now=at + timedelta(minutes=5, seconds=1)
    )


def test_slack_sample_forged_and_missing() -> None:
    cfg = config(P.SLACK, SLACK_SECRET)
    check(cfg, slack_headers(JSON_BODY))
    assert "does not match" in rejected(cfg, slack_headers(JSON_BODY, secret="another"))
    assert "over the tolerance" in rejected(cfg, slack_headers(JSON_BODY, at=NOW_S - 400))
    no_stamp = slack_headers(JSON_BODY)
    del no_stamp["X-Slack-Request-Timestamp"]
    assert "missing X-Slack-Request-Timestamp" in rejected(cfg, no_stamp)
    v1 = slack_headers(JSON_BODY) | {"X-Slack-Signature": "v1=" + "0" * 64}
    assert "does not start with v0=" in rejected(cfg, v1)


# --- Paddle Billing ----------------------------------------------------------------------------------------


def test_paddle_sdk_example() -> None:
    # paddle-python-sdk tests/Unit/Notification/test_Verifier.py: of three secrets only the last signed this
    # header over "hello-world" (a non-hex h1 entry is ignored). The scheme is
    # https://developer.paddle.com/webhooks/signature-verification: HMAC-SHA256 of "{ts}:{raw body}".
    header = "ts=1696195954;h1=dummy;h1=d96299976a6eb066f484d7fde011ac56fc32b38fc9940bc419d6e537fdc6ef02"
    at = datetime.fromtimestamp(1696195954, tz=UTC)
    good = "pdl_ntf_01hbpjmytsa32fhr36nqgc3kgb_WvRO0eL4Bj9rgYYIBZY6wZhG4EHy9jzh"
    check(config(P.PADDLE, good), {"Paddle-Signature": header}, b"hello-world", now=at)
    for wrong in (
        "pdl_ntf_01hbpjmytsa32fhr36nqgc3kgb_TjIG2BXbm83HPXqNfziwe506sBEdqL/4",
        "pdl_ntf_01hbpjmytsa32fhr36nqgc3kgb_vB/yIOnTOCWIvpBadM5jzBZPHc7OmdSo",
    ):
        assert "no Paddle-Signature h1" in rejected(
            config(P.PADDLE, wrong), {"Paddle-Signature": header}, b"hello-world", now=at
        )


def test_paddle_sample_forged_stale() -> None:
    cfg = config(P.PADDLE, PADDLE_SECRET)
    check(cfg, paddle_headers(JSON_BODY))
    assert "no Paddle-Signature h1" in rejected(cfg, paddle_headers(JSON_BODY), JSON_BODY[:-1])
    assert "over the tolerance" in rejected(cfg, paddle_headers(JSON_BODY, at=NOW_S - 301))
    assert "exactly one ts=" in rejected(cfg, {"Paddle-Signature": "h1=" + "0" * 64})


# --- Linear ------------------------------------------------------------------------------------------------
# https://linear.app/developers/webhooks ("Securing webhooks"): Linear-Signature is the hex HMAC-SHA256 of the
# raw body; webhookTimestamp (Unix ms) in the body must be close to now (the SDK, linear/linear
# packages/sdk/src/webhooks/client.ts, allows one minute; here the configured tolerance applies).


def test_linear_sample_forged_stale() -> None:
    cfg = config(P.LINEAR, LINEAR_SECRET)
    body = linear_body()
    check(cfg, linear_headers(body), body)
    assert "does not match" in rejected(cfg, linear_headers(body, secret="lin_wh_other"), body)
    assert "does not match" in rejected(cfg, linear_headers(body), body.replace(b"create", b"remove"))
    stale = linear_body(at_ms=(NOW_S - 301) * 1000)
    assert "webhookTimestamp is 301 s old" in rejected(cfg, linear_headers(stale), stale)
    assert "missing Linear-Signature" in rejected(cfg, {}, body)


def test_linear_timestamp_sources() -> None:
    cfg = config(P.LINEAR, LINEAR_SECRET)
    unstamped = b'{"action": "create", "type": "Issue"}'
    headers = linear_headers(unstamped)
    assert "no webhookTimestamp" in rejected(cfg, headers, unstamped)
    check(cfg, headers | {"Linear-Timestamp": str(NOW_S * 1000)}, unstamped)
    # The signed body wins over the unsigned header.
    stale = linear_body(at_ms=(NOW_S - 3600) * 1000)
    assert "over the tolerance" in rejected(
        cfg, linear_headers(stale) | {"Linear-Timestamp": str(NOW_S * 1000)}, stale
    )
    seconds = b'{"webhookTimestamp": %d}' % NOW_S
    assert "not a Unix time in milliseconds" in rejected(cfg, linear_headers(seconds), seconds)
    text = b'{"webhookTimestamp": "soon"}'
    assert "not an integer" in rejected(cfg, linear_headers(text), text)


@pytest.mark.parametrize("body", [b"not json", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000, b"[1]"])
def test_linear_body_without_a_timestamp_needs_the_header(body: bytes) -> None:
    cfg = config(P.LINEAR, LINEAR_SECRET)
    assert "no webhookTimestamp" in rejected(cfg, linear_headers(body), body)


def test_standard_key_sample_matches_secret() -> None:
    assert base64.b64decode(STANDARD_SECRET.removeprefix("whsec_")) == STANDARD_KEY
