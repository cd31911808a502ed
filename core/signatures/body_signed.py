"""Providers that sign the raw body alone (GitHub, Shopify, Linear, the generic HMAC) or send a token
(GitLab).

Linear adds replay protection through a timestamp inside the signed JSON body; the generic HMAC can add a
timestamp header that is then signed too.
"""

from __future__ import annotations

import json

from core.signatures.common import (
    SignedRequest,
    check_fresh,
    decode_base64,
    decode_hex,
    digests_match,
    hmac_sha256,
    parse_unix_milliseconds,
    parse_unix_seconds,
)
from core.signatures.exceptions import SignatureRejected
from schemas.verification import SignatureEncoding, VerificationConfig

GITHUB_HEADER = "X-Hub-Signature-256"
GITHUB_PREFIX = "sha256="
SHOPIFY_HEADER = "X-Shopify-Hmac-Sha256"
# Shopify's Events deliveries (developer preview) send the same digest without the X- prefix.
SHOPIFY_EVENTS_HEADER = "Shopify-Hmac-Sha256"
GITLAB_HEADER = "X-Gitlab-Token"
LINEAR_HEADER = "Linear-Signature"
LINEAR_TIMESTAMP_HEADER = "Linear-Timestamp"
LINEAR_TIMESTAMP_FIELD = "webhookTimestamp"


def _secret(config: VerificationConfig) -> bytes:
    return config.secret.get_secret_value().encode("utf-8")


def verify_github(config: VerificationConfig, request: SignedRequest) -> None:
    """``X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>``."""
    header = request.headers.require(GITHUB_HEADER)
    if not header.startswith(GITHUB_PREFIX):
        raise SignatureRejected(f"{GITHUB_HEADER} does not start with {GITHUB_PREFIX}")
    received = decode_hex(header.removeprefix(GITHUB_PREFIX), GITHUB_HEADER)
    if not digests_match(hmac_sha256(_secret(config), request.body), received):
        raise SignatureRejected(f"{GITHUB_HEADER} does not match the body")


def verify_shopify(config: VerificationConfig, request: SignedRequest) -> None:
    """``X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`` keyed with the app's client secret."""
    name = SHOPIFY_HEADER if request.headers.get(SHOPIFY_HEADER) is not None else SHOPIFY_EVENTS_HEADER
    received = decode_base64(request.headers.require(name), name)
    if not digests_match(hmac_sha256(_secret(config), request.body), received):
        raise SignatureRejected(f"{name} does not match the body")


def verify_gitlab(config: VerificationConfig, request: SignedRequest) -> None:
    """``X-Gitlab-Token`` carries the secret token itself; nothing is signed."""
    received = request.headers.require(GITLAB_HEADER).encode("utf-8")
    if not digests_match(_secret(config), received):
        raise SignatureRejected(f"{GITLAB_HEADER} does not match")


def verify_linear(config: VerificationConfig, request: SignedRequest) -> None:
    """``Linear-Signature: <hex HMAC-SHA256 of the body>``, then ``webhookTimestamp`` (Unix ms) in the signed
    body within the tolerance. The body is parsed only once its signature holds."""
    received = decode_hex(request.headers.require(LINEAR_HEADER), LINEAR_HEADER)
    if not digests_match(hmac_sha256(_secret(config), request.body), received):
        raise SignatureRejected(f"{LINEAR_HEADER} does not match the body")
    signed_at_ms = _linear_timestamp(request)
    check_fresh(signed_at_ms / 1000, request.now, config.tolerance_seconds, LINEAR_TIMESTAMP_FIELD)


def _linear_timestamp(request: SignedRequest) -> int:
    # The body's field is covered by the signature; the header (which Linear's SDK falls back to) is not,
    # so it counts only when the body has no timestamp.
    try:
        document = json.loads(request.body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        document = None
    if isinstance(document, dict) and LINEAR_TIMESTAMP_FIELD in document:
        value = document[LINEAR_TIMESTAMP_FIELD]
        if isinstance(value, bool) or not isinstance(value, int):
            raise SignatureRejected(f"{LINEAR_TIMESTAMP_FIELD} is not an integer")
        return parse_unix_milliseconds(str(value), LINEAR_TIMESTAMP_FIELD)
    header = request.headers.get(LINEAR_TIMESTAMP_HEADER)
    if header is None:
        raise SignatureRejected(
            f"no {LINEAR_TIMESTAMP_FIELD} in the body and no {LINEAR_TIMESTAMP_HEADER} header"
        )
    return parse_unix_milliseconds(header.strip(), LINEAR_TIMESTAMP_HEADER)


def verify_generic_hmac(config: VerificationConfig, request: SignedRequest) -> None:
    """``<headerName>: [prefix]<hex or base64 HMAC-SHA256>`` of the body, or of ``{timestamp}.{body}`` when a
    timestamp header (Unix seconds) is configured."""
    name = config.header_name
    if name is None:  # the schema requires it; a config built around the schema gets no free pass
        raise SignatureRejected("no headerName configured")
    header = request.headers.require(name)
    if config.prefix is not None:
        if not header.startswith(config.prefix):
            raise SignatureRejected(f"{name} does not start with the configured prefix")
        header = header.removeprefix(config.prefix)
    if config.signature_encoding is SignatureEncoding.BASE64:
        received = decode_base64(header, name)
    else:
        received = decode_hex(header, name)
    message = request.body
    if config.timestamp_header is not None:
        stamp = request.headers.require(config.timestamp_header)
        signed_at = parse_unix_seconds(stamp, config.timestamp_header)
        check_fresh(signed_at, request.now, config.tolerance_seconds, config.timestamp_header)
        message = stamp.encode("ascii") + b"." + request.body
    if not digests_match(hmac_sha256(_secret(config), message), received):
        raise SignatureRejected(f"{name} does not match the body")
