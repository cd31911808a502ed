"""Wire models of a trigger's signature verification (``webhookConfig.verificationConfig``).

A webhook that names a provider accepts a delivery only when it carries that provider's signature made with
the configured secret. The secret is write-only: answers show ``secretHint`` (``masked_hint``), never the
value. The verification itself lives in ``core.signatures``.
"""

from __future__ import annotations

import base64
import binascii
import re
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, SecretStr, ValidationInfo, field_validator, model_validator

from schemas.base import RequestModel, WireModel

MAX_SECRET_CHARS = 512
# Secrets the customer types in themselves (a GitHub or GitLab secret, a generic HMAC key) must be long enough
# not to be guessed; secrets the provider issues are whatever the provider issued.
MIN_CHOSEN_SECRET_CHARS = 16
DEFAULT_TOLERANCE_SECONDS = 300
MAX_TOLERANCE_SECONDS = 3600
MAX_PREFIX_CHARS = 32
# Standard Webhooks: "Random. Between 24 bytes (192 bits) and 64 bytes (512 bits)", base64 behind `whsec_`.
STANDARD_SECRET_PREFIX = "whsec_"  # noqa: S105 - the public prefix of a secret, not a secret
STANDARD_SECRET_MIN_BYTES = 24
STANDARD_SECRET_MAX_BYTES = 64

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
_PRINTABLE_ASCII = re.compile(r"^[\x20-\x7e]*$")
_PREFIX = re.compile(r"^[\x21-\x7e]{1,32}$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
# Prefixes providers put in front of the random part of a secret; showing them tells which secret is stored.
_PUBLIC_SECRET_PREFIXES = ("pdl_ntfset_", "pdl_ntf_", "lin_wh_", "whsec_")
_HINT_TAIL_CHARS = 4
_HINT_MIN_HIDDEN_CHARS = 12


class VerificationProvider(StrEnum):
    GITHUB = "GITHUB"
    STRIPE = "STRIPE"
    STANDARD_WEBHOOKS = "STANDARD_WEBHOOKS"
    SLACK = "SLACK"
    SHOPIFY = "SHOPIFY"
    GITLAB = "GITLAB"
    TWILIO = "TWILIO"
    LINEAR = "LINEAR"
    PADDLE = "PADDLE"
    HMAC_SHA256 = "HMAC_SHA256"


class SignatureEncoding(StrEnum):
    HEX = "HEX"
    BASE64 = "BASE64"


# Providers whose signature covers a timestamp, so a stale delivery can be refused.
TIMESTAMPED_PROVIDERS = frozenset(
    {
        VerificationProvider.STRIPE,
        VerificationProvider.STANDARD_WEBHOOKS,
        VerificationProvider.SLACK,
        VerificationProvider.LINEAR,
        VerificationProvider.PADDLE,
    }
)
_CHOSEN_SECRET_PROVIDERS = frozenset(
    {VerificationProvider.GITHUB, VerificationProvider.GITLAB, VerificationProvider.HMAC_SHA256}
)
_PROVIDER = "provider"


class VerificationConfig(RequestModel):
    """``verificationConfig``: which provider signs the deliveries and the secret it signs them with.

    Every check that can fail is a field validator, and the secret is wrapped before any of them runs: a
    refused config's errors (``errors()[i]["input"]``, the text of a ValidationError, also of a model that
    holds this one) then show ``SecretStr('**********')``, never the secret. A model-level validator would
    report the raw input, secret included.
    """

    model_config = ConfigDict(hide_input_in_errors=True)

    provider: VerificationProvider
    secret: SecretStr = Field(
        json_schema_extra={"writeOnly": True, "minLength": 1, "maxLength": MAX_SECRET_CHARS},
        description="The signing secret (write-only; answers show secretHint).",
    )
    header_name: str | None = Field(
        None, min_length=1, max_length=100, validate_default=True, description="HMAC_SHA256 only (required)."
    )
    encoding: SignatureEncoding | None = Field(None, description="HMAC_SHA256 only: HEX (default) or BASE64.")
    prefix: str | None = Field(
        None, min_length=1, max_length=MAX_PREFIX_CHARS, description="HMAC_SHA256 only, e.g. sha256=."
    )
    timestamp_header: str | None = Field(
        None, min_length=1, max_length=100, description="HMAC_SHA256 only: signs {timestamp}.{body}."
    )
    tolerance_seconds: int = Field(
        DEFAULT_TOLERANCE_SECONDS,
        ge=1,
        le=MAX_TOLERANCE_SECONDS,
        description="How far a signed timestamp may be from the receiver's clock, either way.",
    )

    @model_validator(mode="before")
    @classmethod
    def _wrap_secret(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("secret"), str):
            return {**data, "secret": SecretStr(data["secret"])}
        return data

    @field_validator("secret")
    @classmethod
    def _secret_shape(cls, secret: SecretStr, info: ValidationInfo) -> SecretStr:
        value = secret.get_secret_value()
        if not value:
            raise ValueError("must not be empty")
        if len(value) > MAX_SECRET_CHARS:
            raise ValueError(f"must be at most {MAX_SECRET_CHARS} characters")
        if not _PRINTABLE_ASCII.match(value):
            raise ValueError("must be printable ASCII")
        if value != value.strip():
            raise ValueError("must not start or end with whitespace")
        provider = info.data.get(_PROVIDER)
        if provider is not None:
            _check_secret_for(provider, value)
        return secret

    @field_validator("header_name")
    @classmethod
    def _header_name(cls, name: str | None, info: ValidationInfo) -> str | None:
        generic = info.data.get(_PROVIDER) is VerificationProvider.HMAC_SHA256
        if generic and name is None:
            raise ValueError("required when provider is HMAC_SHA256")
        _generic_only(name, info)
        return _checked_header_name(name)

    @field_validator("encoding", "prefix")
    @classmethod
    def _generic_fields(cls, value: Any, info: ValidationInfo) -> Any:
        if info.field_name == "prefix" and value is not None and not _PREFIX.match(value):
            raise ValueError("must be printable ASCII without spaces")
        _generic_only(value, info)
        return value

    @field_validator("timestamp_header")
    @classmethod
    def _timestamp_header(cls, name: str | None, info: ValidationInfo) -> str | None:
        header_name = info.data.get("header_name")
        if name is not None and header_name is not None and name.lower() == header_name.lower():
            raise ValueError("must differ from headerName")
        _generic_only(name, info)
        return _checked_header_name(name)

    @field_validator("tolerance_seconds")
    @classmethod
    def _tolerance_where_signed(cls, seconds: int, info: ValidationInfo) -> int:
        provider = info.data.get(_PROVIDER)
        signed = provider in TIMESTAMPED_PROVIDERS or (
            provider is VerificationProvider.HMAC_SHA256 and info.data.get("timestamp_header") is not None
        )
        if provider is not None and not signed:
            raise ValueError(
                "only used by providers that sign a timestamp "
                "(STRIPE, STANDARD_WEBHOOKS, SLACK, LINEAR, PADDLE, or HMAC_SHA256 with timestampHeader)"
            )
        return seconds

    @property
    def uses_timestamp(self) -> bool:
        if self.provider is VerificationProvider.HMAC_SHA256:
            return self.timestamp_header is not None
        return self.provider in TIMESTAMPED_PROVIDERS

    @property
    def signature_encoding(self) -> SignatureEncoding:
        return self.encoding or SignatureEncoding.HEX


def _checked_header_name(name: str | None) -> str | None:
    if name is not None and not _HEADER_NAME.match(name):
        raise ValueError("must be an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)")
    return name


def _generic_only(value: object, info: ValidationInfo) -> None:
    provider = info.data.get(_PROVIDER)
    if value is not None and provider is not None and provider is not VerificationProvider.HMAC_SHA256:
        raise ValueError("only used with provider HMAC_SHA256")


def _check_secret_for(provider: VerificationProvider, secret: str) -> None:
    if provider in _CHOSEN_SECRET_PROVIDERS and len(secret) < MIN_CHOSEN_SECRET_CHARS:
        raise ValueError(f"a {provider.value} secret must be at least {MIN_CHOSEN_SECRET_CHARS} characters")
    if provider is VerificationProvider.STANDARD_WEBHOOKS:
        standard_webhooks_key(secret)
    if provider is VerificationProvider.STRIPE and not secret.startswith("whsec_"):
        # The endpoint's signing secret starts with whsec_; an API key (sk_..., rk_...) pasted here by
        # mistake would be stored as if it were a webhook secret.
        raise ValueError("a STRIPE signing secret starts with whsec_ (it is not the API key)")


def standard_webhooks_key(secret: str) -> bytes:
    """The HMAC key of a Standard Webhooks secret: the base64 after ``whsec_`` (padding optional)."""
    if not secret.startswith(STANDARD_SECRET_PREFIX):
        raise ValueError("a STANDARD_WEBHOOKS secret is whsec_ followed by base64")
    encoded = secret.removeprefix(STANDARD_SECRET_PREFIX)
    if not _BASE64.match(encoded):
        raise ValueError("a STANDARD_WEBHOOKS secret is whsec_ followed by base64")
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except binascii.Error as error:
        raise ValueError("a STANDARD_WEBHOOKS secret is whsec_ followed by base64") from error
    if not STANDARD_SECRET_MIN_BYTES <= len(key) <= STANDARD_SECRET_MAX_BYTES:
        raise ValueError(
            f"a STANDARD_WEBHOOKS key is {STANDARD_SECRET_MIN_BYTES} to "
            f"{STANDARD_SECRET_MAX_BYTES} bytes once decoded, not {len(key)}"
        )
    return key


def masked_hint(secret: str | SecretStr) -> str:
    """What an answer shows of a stored secret: a provider's public prefix and at most its last 4 characters.

    The tail is shown only when at least 12 characters stay hidden, so a short secret shows none of itself.
    """
    value = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
    public = next((prefix for prefix in _PUBLIC_SECRET_PREFIXES if value.startswith(prefix)), "")
    rest = value[len(public) :]
    tail = rest[-_HINT_TAIL_CHARS:] if len(rest) - _HINT_TAIL_CHARS >= _HINT_MIN_HIDDEN_CHARS else ""
    return f"{public}…{tail}"


class VerificationConfigView(WireModel):
    """``verificationConfig`` in an answer: the secret appears only as ``secretHint``."""

    provider: VerificationProvider
    secret_hint: str
    tolerance_seconds: int | None = None
    header_name: str | None = None
    encoding: SignatureEncoding | None = None
    prefix: str | None = None
    timestamp_header: str | None = None

    @classmethod
    def from_config(cls, config: VerificationConfig) -> VerificationConfigView:
        generic: dict[str, Any] = {}
        if config.provider is VerificationProvider.HMAC_SHA256:
            generic = {
                "header_name": config.header_name,
                "encoding": config.signature_encoding,
                "prefix": config.prefix,
                "timestamp_header": config.timestamp_header,
            }
        return cls(
            provider=config.provider,
            secret_hint=masked_hint(config.secret),
            tolerance_seconds=config.tolerance_seconds if config.uses_timestamp else None,
            **generic,
        )
