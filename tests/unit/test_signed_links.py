import base64
import json

import pytest

from ingress.analytics.signed_links import LinkError, make_token, read_token

pytestmark = pytest.mark.unit

SECRET = "a-long-enough-test-secret"
NOW = 1_800_000_000


def _token(**claims: str | int) -> str:
    return make_token(SECRET, claims or {"job": "j1", "n": 3}, NOW + 60)


def test_round_trip_returns_the_claims_and_expiry() -> None:
    token = _token()
    assert "=" not in token and "/" not in token and "+" not in token
    assert read_token(SECRET, token, now=NOW) == {"job": "j1", "n": 3, "exp": NOW + 60}


def test_expired_at_and_after_exp() -> None:
    token = _token()
    assert read_token(SECRET, token, now=NOW + 59.9)["job"] == "j1"
    for moment in (NOW + 60, NOW + 3600):
        with pytest.raises(LinkError, match="expired"):
            read_token(SECRET, token, now=moment)


def test_tampered_claims_are_refused() -> None:
    body, signature = _token().split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    for change in ({"job": "j2"}, {"exp": NOW + 10**6}, {"n": 4}):
        forged = base64.urlsafe_b64encode(json.dumps({**claims, **change}).encode()).rstrip(b"=").decode()
        with pytest.raises(LinkError, match="signature"):
            read_token(SECRET, f"{forged}.{signature}", now=NOW)


def test_tampered_signature_is_refused() -> None:
    body, signature = _token().split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    for forged in (f"{body}.{flipped}", f"{body}.{signature[:-1]}", f"{body}.{signature}x"):
        with pytest.raises(LinkError, match="signature"):
            read_token(SECRET, forged, now=NOW)


def test_wrong_secret_and_wrong_purpose_are_refused() -> None:
    token = _token()
    with pytest.raises(LinkError, match="signature"):
        read_token("another-secret-of-some-length", token, now=NOW)
    with pytest.raises(LinkError, match="signature"):
        read_token(SECRET, token, now=NOW, purpose="upload-part")
    scoped = make_token(SECRET, {"p": 1}, NOW + 60, purpose="upload-part")
    assert read_token(SECRET, scoped, now=NOW, purpose="upload-part")["p"] == 1
    with pytest.raises(LinkError):
        read_token(SECRET, scoped, now=NOW)


@pytest.mark.parametrize("token", ["", ".", "abc", "a.b.c", ".sig", "body.", "x" * 5000])
def test_malformed_tokens_are_refused(token: str) -> None:
    with pytest.raises(LinkError):
        read_token(SECRET, token, now=NOW)


def test_claims_must_be_plain_and_exp_is_reserved() -> None:
    with pytest.raises(ValueError, match="exp"):
        make_token(SECRET, {"exp": 1}, NOW)
    with pytest.raises(TypeError):
        make_token(SECRET, {"flag": True}, NOW)
    with pytest.raises(TypeError):
        make_token(SECRET, {"ratio": 0.5}, NOW)  # type: ignore[dict-item]


def test_the_error_never_carries_the_token() -> None:
    token = _token()
    with pytest.raises(LinkError) as caught:
        read_token(SECRET, token, now=NOW + 61)
    assert token not in str(caught.value) and caught.value.reason == "The link has expired"
