"""Providers whose signature covers a timestamp: Stripe, Slack, Paddle Billing and Standard Webhooks.

Each check refuses a timestamp outside the configured tolerance before it computes any HMAC, and accepts any
one of several offered signatures (providers send one per secret while a secret is being rotated).
"""

from __future__ import annotations

from core.signatures.common import (
    MAX_SIGNATURES,
    SignedRequest,
    any_matches,
    check_fresh,
    decode_base64,
    decode_hex,
    hmac_sha256,
    parse_unix_seconds,
)
from core.signatures.exceptions import SignatureRejected
from schemas.verification import VerificationConfig, standard_webhooks_key

STRIPE_HEADER = "Stripe-Signature"
SLACK_SIGNATURE_HEADER = "X-Slack-Signature"
SLACK_TIMESTAMP_HEADER = "X-Slack-Request-Timestamp"
SLACK_VERSION = "v0"
PADDLE_HEADER = "Paddle-Signature"
STANDARD_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
# Svix sends the same scheme under svix-* names unless the account has the webhook-* names turned on.
SVIX_HEADERS = ("svix-id", "svix-timestamp", "svix-signature")


def _secret(config: VerificationConfig) -> bytes:
    return config.secret.get_secret_value().encode("utf-8")


def _pairs(header: str, separator: str, name: str) -> list[tuple[str, str]]:
    items = header.split(separator)
    if len(items) > 2 * MAX_SIGNATURES:
        raise SignatureRejected(f"{name} has more than {2 * MAX_SIGNATURES} elements")
    pairs = []
    for item in items:
        key, equals, value = item.strip().partition("=")
        if not equals:
            raise SignatureRejected(f"{name} has an element that is not key=value")
        pairs.append((key, value))
    return pairs


def _one_timestamp(pairs: list[tuple[str, str]], key: str, name: str) -> str:
    stamps = [value for element, value in pairs if element == key]
    if len(stamps) != 1:
        raise SignatureRejected(f"{name} must carry exactly one {key}=")
    return stamps[0]


def _hex_signatures(pairs: list[tuple[str, str]], scheme: str, name: str) -> list[bytes]:
    offered = []
    for element, value in pairs:
        if element != scheme:
            continue
        try:
            offered.append(decode_hex(value, name))
        except SignatureRejected:
            continue  # a malformed entry cannot match; another entry still may
    if not offered:
        raise SignatureRejected(f"{name} has no {scheme} signature")
    return offered


def verify_stripe(config: VerificationConfig, request: SignedRequest) -> None:
    """``Stripe-Signature: t=<unix s>,v1=<hex>[,v1=<hex>...]``: HMAC-SHA256 of ``{t}.{body}`` keyed with the
    endpoint's ``whsec_`` secret as it is (not decoded). Other schemes (v0: test mode) are ignored."""
    pairs = _pairs(request.headers.require(STRIPE_HEADER), ",", STRIPE_HEADER)
    stamp = _one_timestamp(pairs, "t", STRIPE_HEADER)
    signed_at = parse_unix_seconds(stamp, f"{STRIPE_HEADER} t")
    check_fresh(signed_at, request.now, config.tolerance_seconds, f"{STRIPE_HEADER} t")
    offered = _hex_signatures(pairs, "v1", STRIPE_HEADER)
    expected = hmac_sha256(_secret(config), stamp.encode("ascii") + b"." + request.body)
    if not any_matches(expected, offered):
        raise SignatureRejected(f"no {STRIPE_HEADER} v1 signature matches the body")


def verify_slack(config: VerificationConfig, request: SignedRequest) -> None:
    """``X-Slack-Signature: v0=<hex>``: HMAC-SHA256 of ``v0:{X-Slack-Request-Timestamp}:{body}``."""
    stamp = request.headers.require(SLACK_TIMESTAMP_HEADER)
    signed_at = parse_unix_seconds(stamp, SLACK_TIMESTAMP_HEADER)
    check_fresh(signed_at, request.now, config.tolerance_seconds, SLACK_TIMESTAMP_HEADER)
    header = request.headers.require(SLACK_SIGNATURE_HEADER)
    if not header.startswith(f"{SLACK_VERSION}="):
        raise SignatureRejected(f"{SLACK_SIGNATURE_HEADER} does not start with {SLACK_VERSION}=")
    received = decode_hex(header.removeprefix(f"{SLACK_VERSION}="), SLACK_SIGNATURE_HEADER)
    base = f"{SLACK_VERSION}:{stamp}:".encode("ascii") + request.body
    if not any_matches(hmac_sha256(_secret(config), base), [received]):
        raise SignatureRejected(f"{SLACK_SIGNATURE_HEADER} does not match the body")


def verify_paddle(config: VerificationConfig, request: SignedRequest) -> None:
    """``Paddle-Signature: ts=<unix s>;h1=<hex>[;h1=<hex>...]``: HMAC-SHA256 of ``{ts}:{body}`` keyed with the
    notification destination's secret key."""
    pairs = _pairs(request.headers.require(PADDLE_HEADER), ";", PADDLE_HEADER)
    stamp = _one_timestamp(pairs, "ts", PADDLE_HEADER)
    signed_at = parse_unix_seconds(stamp, f"{PADDLE_HEADER} ts")
    check_fresh(signed_at, request.now, config.tolerance_seconds, f"{PADDLE_HEADER} ts")
    offered = _hex_signatures(pairs, "h1", PADDLE_HEADER)
    expected = hmac_sha256(_secret(config), stamp.encode("ascii") + b":" + request.body)
    if not any_matches(expected, offered):
        raise SignatureRejected(f"no {PADDLE_HEADER} h1 signature matches the body")


def standard_header_names(request: SignedRequest) -> tuple[str, str, str]:
    """The webhook-* names, or the svix-* ones when no webhook-* header came; the two are never mixed."""
    headers = request.headers
    if any(headers.get(name) is not None for name in STANDARD_HEADERS):
        return STANDARD_HEADERS
    if any(headers.get(name) is not None for name in SVIX_HEADERS):
        return SVIX_HEADERS
    return STANDARD_HEADERS


def verify_standard_webhooks(config: VerificationConfig, request: SignedRequest) -> None:
    """``webhook-signature: v1,<base64> [v1,<base64> ...]``: HMAC-SHA256 of
    ``{webhook-id}.{webhook-timestamp}.{body}`` keyed with the base64-decoded part of the ``whsec_`` secret.
    ``v1a`` (asymmetric) entries are ignored."""
    id_name, timestamp_name, signature_name = standard_header_names(request)
    message_id = request.headers.require(id_name)
    stamp = request.headers.require(timestamp_name)
    signature_header = request.headers.require(signature_name)
    signed_at = parse_unix_seconds(stamp, timestamp_name)
    check_fresh(signed_at, request.now, config.tolerance_seconds, timestamp_name)
    entries = signature_header.split()
    if len(entries) > MAX_SIGNATURES:
        raise SignatureRejected(f"{signature_name} has more than {MAX_SIGNATURES} signatures")
    offered = []
    for entry in entries:
        version, comma, value = entry.partition(",")
        if comma and version == "v1":
            try:
                offered.append(decode_base64(value, signature_name))
            except SignatureRejected:
                continue
    if not offered:
        raise SignatureRejected(f"{signature_name} has no v1 signature")
    try:
        key = standard_webhooks_key(config.secret.get_secret_value())
    except ValueError as error:
        raise SignatureRejected("the configured secret is not a Standard Webhooks secret") from error
    signed = f"{message_id}.{stamp}.".encode() + request.body
    if not any_matches(hmac_sha256(key, signed), offered):
        raise SignatureRejected(f"no {signature_name} v1 signature matches the body")
