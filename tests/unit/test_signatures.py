"""Signature verification of the providers that sign the body alone (GitHub, Shopify, GitLab's token, the
generic HMAC), and hostile headers for every provider. Timestamped providers are in
test_signatures_timestamped.py, Twilio in test_signatures_twilio.py, delivery ids in
test_signature_delivery_ids.py."""

from __future__ import annotations

import pytest

from schemas.verification import VerificationConfig
from schemas.verification import VerificationProvider as P
from tests.fixtures.signatures import (
    GENERIC_SECRET,
    GITHUB_SECRET,
    GITLAB_TOKEN,
    JSON_BODY,
    LINEAR_SECRET,
    NOW,
    NOW_S,
    PADDLE_SECRET,
    SHOPIFY_SECRET,
    SLACK_SECRET,
    STRIPE_SECRET,
    TWILIO_TOKEN,
    check,
    config,
    github_headers,
    hmac_b64,
    hmac_hex,
    rejected,
    shopify_headers,
)

pytestmark = pytest.mark.unit

# --- GitHub ------------------------------------------------------------------------------------------------


def test_github_documented_example() -> None:
    # https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries ("Testing the webhook
    # payload validation"): this secret and payload give exactly this signature.
    cfg = config(P.GITHUB, "It's a Secret to Everybody")
    header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    check(cfg, {"X-Hub-Signature-256": header}, b"Hello, World!")
    rejected(cfg, {"X-Hub-Signature-256": header}, b"Hello, World?")


def test_github_sample_forged_and_missing() -> None:
    cfg = config(P.GITHUB, GITHUB_SECRET)
    check(cfg, github_headers(JSON_BODY))
    check(cfg, {"x-hub-signature-256": github_headers(JSON_BODY)["X-Hub-Signature-256"]})  # any header case
    assert "does not match" in rejected(cfg, github_headers(JSON_BODY, secret="another-secret-0123456789"))
    assert "does not match" in rejected(cfg, github_headers(JSON_BODY), JSON_BODY + b" ")
    assert "missing X-Hub-Signature-256" in rejected(cfg, {"X-GitHub-Delivery": "1"})
    # The legacy SHA-1 header alone is not enough.
    assert "missing" in rejected(cfg, {"X-Hub-Signature": "sha1=" + "0" * 40})
    bare = github_headers(JSON_BODY)["X-Hub-Signature-256"].removeprefix("sha256=")
    assert "does not start with sha256=" in rejected(cfg, {"X-Hub-Signature-256": bare})


# --- Shopify -----------------------------------------------------------------------------------------------


def test_shopify_sample_forged_and_missing() -> None:
    # https://shopify.dev/docs/apps/build/webhooks/verify-deliveries: base64 HMAC-SHA256 of the raw body keyed
    # with the app's client secret, in X-Shopify-Hmac-SHA256.
    cfg = config(P.SHOPIFY, SHOPIFY_SECRET)
    check(cfg, shopify_headers(JSON_BODY))
    check(cfg, {"Shopify-Hmac-Sha256": hmac_b64(SHOPIFY_SECRET, JSON_BODY)})  # Events deliveries
    assert "does not match" in rejected(cfg, shopify_headers(JSON_BODY, secret="shpss_other"))
    assert "does not match" in rejected(cfg, shopify_headers(JSON_BODY), b'{"id":"evt_2"}')
    assert "missing" in rejected(cfg, {"X-Shopify-Webhook-Id": "x"})
    hex_digest = hmac_hex(SHOPIFY_SECRET, JSON_BODY)  # hex where base64 is documented
    assert "not base64" in rejected(cfg, {"X-Shopify-Hmac-Sha256": hex_digest + "!"})


# --- GitLab ------------------------------------------------------------------------------------------------


def test_gitlab_token() -> None:
    # https://docs.gitlab.com/user/project/integrations/webhooks/ ("Secret token"): the token is sent as it is
    # in X-Gitlab-Token.
    cfg = config(P.GITLAB, GITLAB_TOKEN)
    check(cfg, {"X-Gitlab-Token": GITLAB_TOKEN})
    assert "does not match" in rejected(cfg, {"X-Gitlab-Token": GITLAB_TOKEN + "x"})
    assert "does not match" in rejected(cfg, {"X-Gitlab-Token": GITLAB_TOKEN[:-1]})
    assert "missing X-Gitlab-Token" in rejected(cfg, {})


# --- Generic HMAC-SHA256 -----------------------------------------------------------------------------------


def test_generic_hmac_hex_with_prefix() -> None:
    cfg = config(P.HMAC_SHA256, GENERIC_SECRET, headerName="X-Signature", prefix="sha256=")
    check(cfg, {"X-Signature": "sha256=" + hmac_hex(GENERIC_SECRET, JSON_BODY)})
    check(cfg, {"X-Signature": "sha256=" + hmac_hex(GENERIC_SECRET, JSON_BODY).upper()})
    assert "prefix" in rejected(cfg, {"X-Signature": hmac_hex(GENERIC_SECRET, JSON_BODY)})
    assert "does not match" in rejected(cfg, {"X-Signature": "sha256=" + hmac_hex("other", JSON_BODY)})
    assert "missing X-Signature" in rejected(cfg, {})


def test_generic_hmac_base64() -> None:
    cfg = config(P.HMAC_SHA256, GENERIC_SECRET, headerName="X-Signature", encoding="BASE64")
    check(cfg, {"X-Signature": hmac_b64(GENERIC_SECRET, JSON_BODY)})
    assert "does not match" in rejected(cfg, {"X-Signature": hmac_b64(GENERIC_SECRET, b"{}")})
    assert "not base64" in rejected(cfg, {"X-Signature": hmac_hex(GENERIC_SECRET, JSON_BODY) + "?"})


def test_generic_hmac_with_timestamp_header() -> None:
    cfg = config(P.HMAC_SHA256, GENERIC_SECRET, headerName="X-Signature", timestampHeader="X-Timestamp")

    def signed(at: int) -> dict[str, str]:
        return {
            "X-Timestamp": str(at),
            "X-Signature": hmac_hex(GENERIC_SECRET, f"{at}.".encode() + JSON_BODY),
        }

    check(cfg, signed(NOW_S - 299))
    assert "over the tolerance of 300 s" in rejected(cfg, signed(NOW_S - 301))
    assert "in the future" in rejected(cfg, signed(NOW_S + 301))
    unstamped = {"X-Signature": hmac_hex(GENERIC_SECRET, JSON_BODY)}
    assert "missing X-Timestamp" in rejected(cfg, unstamped)
    # The timestamp is signed: moving it forward breaks the signature.
    moved = signed(NOW_S - 100) | {"X-Timestamp": str(NOW_S)}
    assert "does not match" in rejected(cfg, moved)


# --- Hostile headers, every provider -----------------------------------------------------------------------

GARBAGE = [
    "",
    " ",
    "=",
    ",,,;;;",
    "v1,",
    "t=,v1=",
    "ts=;h1=",
    "sha256=",
    "v0=zz",
    "é" * 10,
    "A" * 10_000,
    "\x00",
]
PROVIDER_HEADERS: dict[P, tuple[VerificationConfig, list[str]]] = {
    P.GITHUB: (config(P.GITHUB, GITHUB_SECRET), ["X-Hub-Signature-256"]),
    P.STRIPE: (config(P.STRIPE, STRIPE_SECRET), ["Stripe-Signature"]),
    P.STANDARD_WEBHOOKS: (
        config(P.STANDARD_WEBHOOKS, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
        ["webhook-id", "webhook-timestamp", "webhook-signature"],
    ),
    P.SLACK: (config(P.SLACK, SLACK_SECRET), ["X-Slack-Signature", "X-Slack-Request-Timestamp"]),
    P.SHOPIFY: (config(P.SHOPIFY, SHOPIFY_SECRET), ["X-Shopify-Hmac-Sha256"]),
    P.GITLAB: (config(P.GITLAB, GITLAB_TOKEN), ["X-Gitlab-Token"]),
    P.TWILIO: (config(P.TWILIO, TWILIO_TOKEN), ["X-Twilio-Signature"]),
    P.LINEAR: (config(P.LINEAR, LINEAR_SECRET), ["Linear-Signature", "Linear-Timestamp"]),
    P.PADDLE: (config(P.PADDLE, PADDLE_SECRET), ["Paddle-Signature"]),
    P.HMAC_SHA256: (
        config(P.HMAC_SHA256, GENERIC_SECRET, headerName="X-Sig", timestampHeader="X-Ts"),
        ["X-Sig", "X-Ts"],
    ),
}


@pytest.mark.parametrize("provider", list(P))
@pytest.mark.parametrize("garbage", GARBAGE)
def test_garbage_headers_are_rejected_not_crashes(provider: P, garbage: str) -> None:
    cfg, names = PROVIDER_HEADERS[provider]
    rejected(cfg, dict.fromkeys(names, garbage), url=f"https://hooks.example.com/t?x={garbage[:20]}")


@pytest.mark.parametrize("provider", list(P))
def test_no_headers_at_all(provider: P) -> None:
    cfg, _ = PROVIDER_HEADERS[provider]
    assert "missing" in rejected(cfg, {})


def test_a_signature_header_sent_twice_differently_is_refused() -> None:
    cfg = config(P.GITHUB, GITHUB_SECRET)
    good = github_headers(JSON_BODY)["X-Hub-Signature-256"]
    reason = rejected(cfg, {"X-Hub-Signature-256": good, "x-hub-signature-256": "sha256=" + "0" * 64})
    assert "sent more than once" in reason
    check(
        cfg, {"X-Hub-Signature-256": good, "x-hub-signature-256": good}
    )  # the same value twice is one value


def test_a_naive_clock_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="naive"):
        check(config(P.GITHUB, GITHUB_SECRET), github_headers(JSON_BODY), now=NOW.replace(tzinfo=None))
