"""The signature-checking examples of docs/scripting.md, run exactly as documented."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from sinks.scripting.sandbox import VALIDATION_ARGS, ValidationOutcome, compile_check, run_validation

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[3] / "docs" / "scripting.md"
NOW = 1_718_000_000
BODY = json.dumps({"id": "evt_1", "type": "payment_intent.succeeded", "amount": 1999, "note": "café ☕"})


def documented_script(name: str, placeholder: str, secret: str) -> str:
    """The fenced block after `<!-- script: name -->`, with its placeholder secret replaced."""
    blocks = re.findall(
        r"<!-- script: (\w+) -->\n```js\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL
    )
    scripts: dict[str, str] = dict(blocks)
    assert len(scripts) == len(blocks), "duplicate script markers in the docs"
    script = scripts[name]
    assert script.count(placeholder) == 1
    return script.replace(placeholder, secret)


def sign(secret: str, message: str) -> str:
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()


def test_every_documented_script_compiles() -> None:
    for name, placeholder in [
        ("github", GITHUB_PLACEHOLDER),
        ("stripe", STRIPE_PLACEHOLDER),
        ("slack", SLACK_PLACEHOLDER),
    ]:
        compile_check(documented_script(name, placeholder, "s"), VALIDATION_ARGS)


# ---- GitHub ----------------------------------------------------------------------------------------------

GITHUB_PLACEHOLDER = "YOUR_GITHUB_WEBHOOK_SECRET"
GITHUB_SECRET = "gh-secret-3f9a"


def github(headers: dict[str, str], body: str = BODY) -> ValidationOutcome:
    script = documented_script("github", GITHUB_PLACEHOLDER, GITHUB_SECRET)
    return run_validation(script, headers, body, {}, now=NOW)


def test_github_genuine_delivery_passes() -> None:
    assert github({"X-Hub-Signature-256": "sha256=" + sign(GITHUB_SECRET, BODY)}).valid


def test_github_header_name_in_any_case() -> None:
    assert github({"x-hub-signature-256": "sha256=" + sign(GITHUB_SECRET, BODY)}).valid


def test_github_large_body_passes() -> None:
    body = json.dumps({"commits": [{"message": "ünïcode " * 20, "id": i} for i in range(5000)]})
    assert len(body) > 1_000_000
    assert github({"X-Hub-Signature-256": "sha256=" + sign(GITHUB_SECRET, body)}, body).valid


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Hub-Signature-256": "sha256=" + sign("another-secret", BODY)},
        {"X-Hub-Signature-256": sign(GITHUB_SECRET, BODY)},
        {"X-Hub-Signature-256": "sha256=" + "0" * 64},
        {
            "X-Hub-Signature": "sha1="
            + hmac.new(GITHUB_SECRET.encode(), BODY.encode(), hashlib.sha1).hexdigest()
        },
        {},
    ],
    ids=["wrong-secret", "no-prefix", "zeros", "sha1-only", "missing"],
)
def test_github_forged_signature_fails(headers: dict[str, str]) -> None:
    assert github(headers) == ValidationOutcome(False, "Invalid GitHub signature.")


def test_github_tampered_body_fails() -> None:
    tampered = BODY.replace("1999", "1")
    assert not github({"X-Hub-Signature-256": "sha256=" + sign(GITHUB_SECRET, BODY)}, tampered).valid


# ---- Stripe ----------------------------------------------------------------------------------------------

STRIPE_PLACEHOLDER = "whsec_YOUR_STRIPE_SIGNING_SECRET"
STRIPE_SECRET = "whsec_test_5b8c0e"


def stripe(signature_header: str | None, body: str = BODY) -> ValidationOutcome:
    script = documented_script("stripe", STRIPE_PLACEHOLDER, STRIPE_SECRET)
    headers = {} if signature_header is None else {"Stripe-Signature": signature_header}
    return run_validation(script, headers, body, {}, now=NOW)


def stripe_header(timestamp: int, *signatures: str) -> str:
    return ",".join([f"t={timestamp}", *(f"v1={s}" for s in signatures), "v0=legacy"])


def test_stripe_genuine_delivery_passes() -> None:
    assert stripe(stripe_header(NOW - 10, sign(STRIPE_SECRET, f"{NOW - 10}.{BODY}"))).valid


def test_stripe_any_of_several_v1_signatures_may_match() -> None:
    good = sign(STRIPE_SECRET, f"{NOW}.{BODY}")
    assert stripe(stripe_header(NOW, sign("whsec_old", f"{NOW}.{BODY}"), good)).valid


def test_stripe_accepts_the_edge_of_the_tolerance() -> None:
    timestamp = NOW - 300
    assert stripe(stripe_header(timestamp, sign(STRIPE_SECRET, f"{timestamp}.{BODY}"))).valid


def test_stripe_forged_signature_fails() -> None:
    forged = sign("whsec_attacker", f"{NOW}.{BODY}")
    assert stripe(stripe_header(NOW, forged)) == ValidationOutcome(False, "Invalid Stripe signature.")


def test_stripe_tampered_body_fails() -> None:
    header = stripe_header(NOW, sign(STRIPE_SECRET, f"{NOW}.{BODY}"))
    assert not stripe(header, BODY + " ").valid


def test_stripe_signature_bound_to_its_timestamp() -> None:
    old = NOW - 100
    header = f"t={NOW},v1={sign(STRIPE_SECRET, f'{old}.{BODY}')}"
    assert not stripe(header).valid


@pytest.mark.parametrize("age", [301, 3600, -301])
def test_stripe_stale_or_future_timestamp_fails(age: int) -> None:
    timestamp = NOW - age
    outcome = stripe(stripe_header(timestamp, sign(STRIPE_SECRET, f"{timestamp}.{BODY}")))
    assert outcome == ValidationOutcome(False, "Stripe signature timestamp is outside the tolerance.")


@pytest.mark.parametrize("header", [None, "", "t=abc,v1=00", f"t={NOW}", "v1=abc", "garbage"])
def test_stripe_malformed_header_fails(header: str | None) -> None:
    assert stripe(header) == ValidationOutcome(False, "Missing or malformed Stripe-Signature header.")


# ---- Slack -----------------------------------------------------------------------------------------------

SLACK_PLACEHOLDER = "YOUR_SLACK_SIGNING_SECRET"
SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
SLACK_BODY = "token=xyz&team_id=T1&command=%2Fweather&text=94070"


def slack(timestamp: str | None, signature: str | None, body: str = SLACK_BODY) -> ValidationOutcome:
    script = documented_script("slack", SLACK_PLACEHOLDER, SLACK_SECRET)
    headers = {}
    if timestamp is not None:
        headers["X-Slack-Request-Timestamp"] = timestamp
    if signature is not None:
        headers["X-Slack-Signature"] = signature
    return run_validation(script, headers, body, {}, now=NOW)


def slack_signature(timestamp: int, body: str = SLACK_BODY, secret: str = SLACK_SECRET) -> str:
    return "v0=" + sign(secret, f"v0:{timestamp}:{body}")


def test_slack_genuine_request_passes() -> None:
    assert slack(str(NOW - 30), slack_signature(NOW - 30)).valid


def test_slack_forged_signature_fails() -> None:
    forged = slack_signature(NOW, secret="not-the-secret")
    assert slack(str(NOW), forged) == ValidationOutcome(False, "Invalid Slack signature.")


def test_slack_tampered_body_fails() -> None:
    assert not slack(str(NOW), slack_signature(NOW), SLACK_BODY + "&admin=1").valid


def test_slack_replayed_timestamp_fails() -> None:
    old = NOW - 301
    assert slack(str(old), slack_signature(old)) == ValidationOutcome(
        False, "Slack request timestamp is missing or too old."
    )


def test_slack_timestamp_swapped_after_signing_fails() -> None:
    assert not slack(str(NOW), slack_signature(NOW - 400)).valid


@pytest.mark.parametrize(("timestamp", "signature"), [(None, "v0=00"), ("soon", "v0=00"), (str(NOW), None)])
def test_slack_missing_headers_fail(timestamp: str | None, signature: str | None) -> None:
    assert not slack(timestamp, signature).valid
