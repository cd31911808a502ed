"""Signature verification of provider webhooks (``webhookConfig.verificationConfig``).

``verify`` accepts a delivery or raises ``SignatureRejected``; the caller answers 401 ``Invalid signature.``
and queues nothing. Each provider's check follows that provider's documentation and SDK (the unit tests carry
the published worked examples). Pure: the standard library and ``schemas`` only, so the ingress can run it
before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from core.signatures.body_signed import (
    GITLAB_HEADER,
    verify_generic_hmac,
    verify_github,
    verify_gitlab,
    verify_linear,
    verify_shopify,
)
from core.signatures.common import RequestHeaders, SignedRequest
from core.signatures.delivery_ids import provider_delivery_id
from core.signatures.exceptions import SignatureRejected
from core.signatures.timestamped import verify_paddle, verify_slack, verify_standard_webhooks, verify_stripe
from core.signatures.twilio import verify_twilio
from schemas.verification import VerificationConfig, VerificationProvider

__all__ = ["SignatureRejected", "provider_delivery_id", "secret_headers", "verify"]

# Headers that carry the secret itself rather than a signature made with it: never stored or shown.
_SECRET_HEADERS: dict[str, frozenset[str]] = {
    VerificationProvider.GITLAB.value: frozenset({GITLAB_HEADER.lower()})
}


def secret_headers(provider: str | None) -> frozenset[str]:
    """Lower-case names of the headers that carry ``provider``'s secret in clear (GitLab's token)."""
    return _SECRET_HEADERS.get(provider or "", frozenset())


_CHECKS: dict[VerificationProvider, Callable[[VerificationConfig, SignedRequest], None]] = {
    VerificationProvider.GITHUB: verify_github,
    VerificationProvider.STRIPE: verify_stripe,
    VerificationProvider.STANDARD_WEBHOOKS: verify_standard_webhooks,
    VerificationProvider.SLACK: verify_slack,
    VerificationProvider.SHOPIFY: verify_shopify,
    VerificationProvider.GITLAB: verify_gitlab,
    VerificationProvider.TWILIO: verify_twilio,
    VerificationProvider.LINEAR: verify_linear,
    VerificationProvider.PADDLE: verify_paddle,
    VerificationProvider.HMAC_SHA256: verify_generic_hmac,
}


def verify(
    config: VerificationConfig,
    *,
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    now: datetime,
) -> None:
    """Accept the delivery or raise ``SignatureRejected``.

    ``url`` is the full URL the provider called (scheme, host, path and query as the provider saw them; only
    Twilio signs it), ``body`` the raw bytes before any parsing, ``now`` a timezone-aware receive time.
    """
    if now.tzinfo is None:
        raise ValueError("naive datetime refused: use timezone-aware UTC")
    request = SignedRequest(method=method, url=url, headers=RequestHeaders(headers), body=body, now=now)
    _CHECKS[config.provider](config, request)
