"""verificationConfig: what each provider accepts, the write-only secret and the hint answers show."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from schemas.base import RequestModel
from schemas.verification import (
    VerificationConfig,
    VerificationConfigView,
    masked_hint,
)
from schemas.verification import VerificationProvider as P
from tests.fixtures.signatures import GENERIC_SECRET, GITHUB_SECRET, STANDARD_SECRET, STRIPE_SECRET

pytestmark = pytest.mark.unit


def refused(body: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        VerificationConfig.model_validate(body)
    return str(caught.value)


def test_every_provider_has_a_valid_config() -> None:
    secrets = {P.GITHUB: GITHUB_SECRET, P.GITLAB: GITHUB_SECRET, P.STRIPE: STRIPE_SECRET}
    secrets |= {P.STANDARD_WEBHOOKS: STANDARD_SECRET, P.HMAC_SHA256: GENERIC_SECRET}
    for provider in P:
        extra = {"headerName": "X-Signature"} if provider is P.HMAC_SHA256 else {}
        config = VerificationConfig.model_validate(
            {"provider": provider, "secret": secrets.get(provider, "provider-issued"), **extra}
        )
        assert config.tolerance_seconds == 300


def test_wire_names_are_camel_case() -> None:
    config = VerificationConfig.model_validate(
        {
            "provider": "HMAC_SHA256",
            "secret": GENERIC_SECRET,
            "headerName": "X-Signature",
            "encoding": "BASE64",
            "prefix": "sha256=",
            "timestampHeader": "X-Timestamp",
            "toleranceSeconds": 60,
        }
    )
    assert (config.header_name, config.prefix, config.timestamp_header) == (
        "X-Signature",
        "sha256=",
        "X-Timestamp",
    )
    assert config.tolerance_seconds == 60
    assert "Extra inputs are not permitted" in refused(
        {"provider": "GITHUB", "secret": GITHUB_SECRET, "algo": "x"}
    )


def test_standard_webhooks_secret_is_whsec_base64_of_24_to_64_bytes() -> None:
    assert "whsec_ followed by base64" in refused(
        {"provider": "STANDARD_WEBHOOKS", "secret": "MfKQ9r8GKYqrTwjU"}
    )
    assert "whsec_ followed by base64" in refused(
        {"provider": "STANDARD_WEBHOOKS", "secret": "whsec_not*base64!"}
    )
    short = "whsec_" + base64.b64encode(bytes(16)).decode()
    assert "24 to 64 bytes once decoded, not 16" in refused(
        {"provider": "STANDARD_WEBHOOKS", "secret": short}
    )
    long = "whsec_" + base64.b64encode(bytes(65)).decode()
    assert "not 65" in refused({"provider": "STANDARD_WEBHOOKS", "secret": long})
    unpadded = "whsec_" + base64.b64encode(bytes(25)).decode().rstrip("=")
    VerificationConfig.model_validate({"provider": "STANDARD_WEBHOOKS", "secret": unpadded})


def test_generic_hmac_needs_a_header_name() -> None:
    assert "required when provider is HMAC_SHA256" in refused(
        {"provider": "HMAC_SHA256", "secret": GENERIC_SECRET}
    )
    assert "HTTP header name" in refused(
        {"provider": "HMAC_SHA256", "secret": GENERIC_SECRET, "headerName": "X Signature"}
    )
    assert "must differ" in refused(
        {
            "provider": "HMAC_SHA256",
            "secret": GENERIC_SECRET,
            "headerName": "X-Sig",
            "timestampHeader": "x-sig",
        }
    )
    assert "without spaces" in refused(
        {"provider": "HMAC_SHA256", "secret": GENERIC_SECRET, "headerName": "X-Sig", "prefix": "sha 256="}
    )
    assert "encoding" in refused(
        {"provider": "HMAC_SHA256", "secret": GENERIC_SECRET, "headerName": "X-Sig", "encoding": "BASE32"}
    )


@pytest.mark.parametrize(
    "field",
    [{"headerName": "X-Sig"}, {"encoding": "HEX"}, {"prefix": "sha256="}, {"timestampHeader": "X-Ts"}],
)
def test_generic_fields_are_refused_for_presets(field: dict[str, str]) -> None:
    assert "only used with provider HMAC_SHA256" in refused(
        {"provider": "GITHUB", "secret": GITHUB_SECRET, **field}
    )


def test_tolerance_only_where_a_timestamp_is_signed_and_within_bounds() -> None:
    assert "only used by providers that sign a timestamp" in refused(
        {"provider": "GITHUB", "secret": GITHUB_SECRET, "toleranceSeconds": 60}
    )
    assert "only used by providers that sign a timestamp" in refused(
        {"provider": "HMAC_SHA256", "secret": GENERIC_SECRET, "headerName": "X-Sig", "toleranceSeconds": 60}
    )
    for bad in (0, -1, 3601):
        assert "toleranceSeconds" in refused(
            {"provider": "STRIPE", "secret": STRIPE_SECRET, "toleranceSeconds": bad}
        )
    VerificationConfig.model_validate({"provider": "SLACK", "secret": "x", "toleranceSeconds": 3600})


def test_secret_shape() -> None:
    assert "at least 16 characters" in refused({"provider": "GITHUB", "secret": "short"})
    assert "at least 16 characters" in refused({"provider": "GITLAB", "secret": "short"})
    assert "at least 16 characters" in refused(
        {"provider": "HMAC_SHA256", "secret": "short", "headerName": "X-S"}
    )
    assert "not the API key" in refused({"provider": "STRIPE", "secret": "sk_live_0123456789abcdef"})
    assert "must not be empty" in refused({"provider": "SLACK", "secret": ""})
    assert "whitespace" in refused({"provider": "SLACK", "secret": "abc\n"})
    assert "printable ASCII" in refused({"provider": "SLACK", "secret": "clé-secrète"})
    assert "at most 512" in refused({"provider": "SLACK", "secret": "x" * 513})
    assert "Input should be" in refused({"provider": "SLACK", "secret": 12345})
    assert "Input should be" in refused({"provider": "BITBUCKET", "secret": GITHUB_SECRET})


def test_secret_is_write_only() -> None:
    config = VerificationConfig.model_validate({"provider": "GITHUB", "secret": GITHUB_SECRET})
    assert GITHUB_SECRET not in repr(config)
    assert GITHUB_SECRET not in config.model_dump_json()
    assert GITHUB_SECRET not in str(config.model_dump())
    assert VerificationConfig.model_json_schema()["properties"]["secret"]["writeOnly"] is True


class Holder(RequestModel):
    """A request that carries a verificationConfig, as webhookConfig will."""

    verification_config: VerificationConfig


SECRET = "Sup3r-S3cret-Value"  # what must not reappear in any error


@pytest.mark.parametrize(
    "body",
    [
        {"provider": "GITHUB", "secret": SECRET[:12]},  # too short for a chosen secret
        {"provider": "GITHUB", "secret": SECRET + " "},  # whitespace
        {"provider": "STRIPE", "secret": SECRET},  # not whsec_
        {"provider": "STANDARD_WEBHOOKS", "secret": "whsec_" + SECRET},  # not base64
        {"provider": "HMAC_SHA256", "secret": SECRET},  # no headerName
        {"provider": "GITHUB", "secret": SECRET, "toleranceSeconds": 60},
        {"provider": "GITHUB", "secret": SECRET, "prefix": "sha256="},
        {"provider": "GITHUB", "secret": SECRET, "unknown": 1},
        {"provider": "NOPE", "secret": SECRET},
    ],
)
def test_no_error_repeats_the_secret(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as direct:
        VerificationConfig.model_validate(body)
    with pytest.raises(ValidationError) as nested:
        Holder.model_validate({"verificationConfig": body})
    for caught in (direct.value, nested.value):
        assert SECRET[:12] not in str(caught)
        assert SECRET[:12] not in repr(caught.errors())
        assert SECRET[:12] not in caught.json()


def test_view_shows_only_the_hint() -> None:
    config = VerificationConfig.model_validate(
        {"provider": "STRIPE", "secret": STRIPE_SECRET + "0123456789abcdef"}
    )
    view = VerificationConfigView.from_config(config).model_dump(by_alias=True, exclude_none=True)
    assert view == {"provider": "STRIPE", "secretHint": "whsec_…cdef", "toleranceSeconds": 300}
    generic = VerificationConfig.model_validate(
        {"provider": "HMAC_SHA256", "secret": GENERIC_SECRET, "headerName": "X-Sig", "prefix": "v1="}
    )
    shown = VerificationConfigView.from_config(generic).model_dump(by_alias=True, exclude_none=True)
    assert shown == {
        "provider": "HMAC_SHA256",
        "secretHint": "…6789",
        "headerName": "X-Sig",
        "encoding": "HEX",
        "prefix": "v1=",
    }


@pytest.mark.parametrize(
    ("secret", "hint"),
    [
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_…LaSw"),
        ("pdl_ntfset_01hs0t3tw21j988db1pam5xg8m_GrOWLNef", "pdl_ntfset_…LNef"),
        ("lin_wh_0123456789abcdefghij", "lin_wh_…ghij"),
        ("8f742231b10e8888abcd99yyyzzz85a5", "…85a5"),
        ("0123456789abcdef", "…cdef"),
        ("0123456789abcde", "…"),  # fewer than 12 characters would stay hidden: no tail
        ("12345", "…"),
        ("whsec_abc", "whsec_…"),
        ("", "…"),
    ],
)
def test_masked_hint(secret: str, hint: str) -> None:
    assert masked_hint(secret) == hint
    assert masked_hint(SecretStr(secret)) == hint
    tail = hint.split("…")[1]
    assert len(tail) <= 4
