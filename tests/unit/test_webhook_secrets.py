"""A webhook's verification secret at rest (sinks/db/webhooks/secrets.py): sealed, answered as a hint only."""

from __future__ import annotations

import json

import pytest

from schemas.verification import VerificationConfig
from sinks.db.webhooks.secrets import SEALED_SECRET, answered, stored_verification, verification_of
from sinks.iceberg.exceptions import MaskingError
from sinks.iceberg.masking import Masker

pytestmark = pytest.mark.unit

KEY = "unit-test-secret-key-0123456789"
ACME = "a" * 32
GLOBEX = "b" * 32
SECRET = "generic-hmac-secret-0123456789-WXYZ"


def _config() -> VerificationConfig:
    return VerificationConfig.model_validate(
        {
            "provider": "HMAC_SHA256",
            "secret": SECRET,
            "headerName": "X-Signature",
            "prefix": "sha256=",
            "timestampHeader": "X-Timestamp",
            "toleranceSeconds": 120,
        }
    )


def test_stored_form_holds_the_answer_and_the_sealed_secret_only() -> None:
    stored = stored_verification(Masker(KEY), ACME, _config())
    assert SECRET not in json.dumps(stored)
    assert stored[SEALED_SECRET].startswith("v1:")
    assert answered({"name": "x", "verificationConfig": stored}) == {
        "name": "x",
        "verificationConfig": {
            "provider": "HMAC_SHA256",
            "secretHint": "…WXYZ",
            "toleranceSeconds": 120,
            "headerName": "X-Signature",
            "encoding": "HEX",
            "prefix": "sha256=",
            "timestampHeader": "X-Timestamp",
        },
    }


def test_the_trigger_gets_the_config_back_whole() -> None:
    masker = Masker(KEY)
    opened = verification_of(masker, ACME, stored_verification(masker, ACME, _config()))
    # The answer names the default encoding (HEX) that the request left out; nothing else differs.
    assert opened.model_dump(exclude={"encoding"}) == _config().model_dump(exclude={"encoding"})
    assert opened.signature_encoding is _config().signature_encoding
    assert opened.secret.get_secret_value() == SECRET


def test_a_sealed_secret_opens_only_for_its_company_and_purpose() -> None:
    masker = Masker(KEY)
    stored = stored_verification(masker, ACME, _config())
    with pytest.raises(MaskingError):
        verification_of(masker, GLOBEX, stored)
    with pytest.raises(MaskingError):  # not under the company's masked-column key either
        masker.decrypt(ACME, stored[SEALED_SECRET])
    with pytest.raises(MaskingError):  # another SVC_SECRET_KEY
        verification_of(Masker(KEY + "-rotated"), ACME, stored)


def test_configurations_without_a_sealed_secret_are_answered_as_stored() -> None:
    config = {"name": "x", "filterConfig": {"body": {"a": 1}}}
    assert answered(config) is config
