import base64

import pytest

from sinks.iceberg.exceptions import MaskingError
from sinks.iceberg.masking import TOKEN_PREFIX, Masker

pytestmark = pytest.mark.unit

SECRET = "unit-test-secret-key-0123456789"
ACME = "a" * 32
GLOBEX = "b" * 32


@pytest.mark.parametrize("plaintext", ["", "ada@example.com", "ünïcödé ☃ 𝄞", "x" * 10_000])
def test_round_trip(plaintext: str) -> None:
    masker = Masker(SECRET)
    token = masker.encrypt(ACME, plaintext)
    assert token.startswith(TOKEN_PREFIX)
    assert masker.decrypt(ACME, token) == plaintext
    assert Masker(SECRET).decrypt(ACME, token) == plaintext  # the key is derived, not stored


def test_same_value_encrypts_differently_each_time() -> None:
    masker = Masker(SECRET)
    assert masker.encrypt(ACME, "same") != masker.encrypt(ACME, "same")


def test_encryptor_and_decryptor_match_the_methods() -> None:
    masker = Masker(SECRET)
    token = masker.encryptor(ACME)("card 4242")
    assert masker.decrypt(ACME, token) == "card 4242"
    assert masker.decryptor(ACME)(masker.encrypt(ACME, "y")) == "y"


def test_another_company_cannot_decrypt() -> None:
    masker = Masker(SECRET)
    token = masker.encrypt(ACME, "secret")
    with pytest.raises(MaskingError, match="altered or belongs to another company"):
        masker.decrypt(GLOBEX, token)


def test_another_service_secret_cannot_decrypt() -> None:
    token = Masker(SECRET).encrypt(ACME, "secret")
    with pytest.raises(MaskingError):
        Masker(SECRET + "-rotated").decrypt(ACME, token)


@pytest.mark.parametrize("position", [0, 11, 12, -1])
def test_tampering_is_detected(position: int) -> None:
    masker = Masker(SECRET)
    raw = bytearray(base64.b64decode(masker.encrypt(ACME, "secret")[len(TOKEN_PREFIX) :]))
    raw[position] ^= 0x01
    with pytest.raises(MaskingError, match="altered"):
        masker.decrypt(ACME, TOKEN_PREFIX + base64.b64encode(bytes(raw)).decode())


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("plain text", "unknown format"),
        ("v2:AAAA", "unknown format"),
        ("v1:not base64!", "not valid base64"),
        ("v1:" + base64.b64encode(b"short").decode(), "truncated"),
    ],
)
def test_malformed_tokens(token: str, message: str) -> None:
    with pytest.raises(MaskingError, match=message):
        Masker(SECRET).decrypt(ACME, token)


def test_key_cache_is_bounded_and_still_correct() -> None:
    masker = Masker(SECRET, cache_size=2)
    companies = [c * 32 for c in "cdef"]
    tokens = {company: masker.encrypt(company, company[:4]) for company in companies}
    assert len(masker._ciphers) == 2
    for company, token in tokens.items():
        assert masker.decrypt(company, token) == company[:4]


def test_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 16"):
        Masker("short")
