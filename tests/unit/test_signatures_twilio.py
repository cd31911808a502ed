"""Twilio's request signatures: the documented example, the helper libraries' examples (ports, a JSON body's
bodySHA256, repeated parameters) and forgeries."""

from __future__ import annotations

import hashlib
from urllib.parse import urlencode

import pytest

from schemas.verification import VerificationProvider as P
from tests.fixtures.signatures import FORM, TWILIO_TOKEN, check, config, rejected, twilio_signature

pytestmark = pytest.mark.unit

TWILIO_URL = "https://mycompany.com/myapp.php?foo=1&bar=2"
DOC_PARAMS = {
    "CallSid": "CA1234567890ABCDE",
    "Caller": "+12349013030",
    "Digits": "1234",
    "From": "+12349013030",
    "To": "+18005551212",
}


def twilio(url: str, body: bytes, signature: str, content_type: str = FORM) -> None:
    check(
        config(P.TWILIO, "12345"),
        {"X-Twilio-Signature": signature, "Content-Type": content_type},
        body,
        url=url,
    )


def test_twilio_documented_example() -> None:
    # https://www.twilio.com/docs/usage/security#validating-requests: Auth Token 12345, this URL and these
    # POST parameters sign to 0/KCTR6DLpKmkAf8muzZqo1nDgQ=.
    twilio(TWILIO_URL, urlencode(DOC_PARAMS).encode(), "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")
    # The form's own order does not matter: the parameters are sorted before signing.
    reordered = dict(reversed(list(DOC_PARAMS.items())))
    twilio(TWILIO_URL, urlencode(reordered).encode(), "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")


def test_twilio_sdk_examples() -> None:
    # twilio-python tests/unit/test_request_validator.py (the example of Twilio's helper-library docs).
    params = DOC_PARAMS | {"Caller": "+14158675309", "From": "+14158675309"}
    twilio(TWILIO_URL, urlencode(params).encode(), "RSOYDt4T1cUTdK1PDd93/VVr8B8=")
    # The same signature with the port Twilio may add or leave out (:443 here, any port removed).
    twilio(
        TWILIO_URL.replace(".com", ".com:1234"), urlencode(params).encode(), "RSOYDt4T1cUTdK1PDd93/VVr8B8="
    )
    twilio(TWILIO_URL, urlencode(params).encode(), "kvajT1Ptam85bY51eRf/AJRuM3w=")  # signed with :443
    # A JSON body: the URL carries bodySHA256 and only the URL is signed.
    body = b'{"property": "value", "boolean": true}'
    digest = "0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620"
    assert hashlib.sha256(body).hexdigest() == digest
    twilio(f"{TWILIO_URL}&bodySHA256={digest}", body, "a9nBmqA0ju/hNViExpshrM61xv4=", "application/json")


def test_twilio_forged() -> None:
    cfg = config(P.TWILIO, TWILIO_TOKEN)
    body = urlencode(DOC_PARAMS).encode()
    good = twilio_signature(TWILIO_TOKEN, TWILIO_URL + "".join(k + DOC_PARAMS[k] for k in sorted(DOC_PARAMS)))
    headers = {"X-Twilio-Signature": good, "Content-Type": FORM}
    check(cfg, headers, body, url=TWILIO_URL)
    assert "does not match" in rejected(cfg, headers, body.replace(b"1234", b"9999"), url=TWILIO_URL)
    assert "does not match" in rejected(cfg, headers, body, url=TWILIO_URL.replace("foo=1", "foo=2"))
    assert "does not match" in rejected(cfg, headers, body, url=TWILIO_URL.replace("https", "http"))
    assert "does not match" in rejected(config(P.TWILIO, TWILIO_TOKEN[::-1]), headers, body, url=TWILIO_URL)
    assert "missing X-Twilio-Signature" in rejected(cfg, {"Content-Type": FORM}, body, url=TWILIO_URL)


def test_twilio_json_body_must_match_its_hash() -> None:
    cfg = config(P.TWILIO, TWILIO_TOKEN)
    body = b'{"a": 1}'
    url = f"https://hooks.example.com/t?bodySHA256={hashlib.sha256(body).hexdigest()}"
    headers = {"X-Twilio-Signature": twilio_signature(TWILIO_TOKEN, url), "Content-Type": "application/json"}
    check(cfg, headers, body, url=url)
    assert "bodySHA256 does not match" in rejected(cfg, headers, b'{"a": 2}', url=url)


def test_twilio_repeated_parameters() -> None:
    cfg = config(P.TWILIO, "12345")
    body = b"Sid=CA123&SidAccount=AC123&Digits=5678&Digits=1234&Digits=1234"
    # twilio-python drops the repeated value before signing (its duplicate_expected vector)...
    check(
        cfg,
        {"X-Twilio-Signature": "IK+Dwps556ElfBT0I3Rgjkr1wJU=", "Content-Type": FORM},
        body,
        url=TWILIO_URL,
    )
    # ...and twilio-node keeps it; both are accepted.
    kept = TWILIO_URL + "Digits1234Digits1234Digits5678SidCA123SidAccountAC123"
    check(
        cfg,
        {"X-Twilio-Signature": twilio_signature("12345", kept), "Content-Type": FORM},
        body,
        url=TWILIO_URL,
    )


@pytest.mark.parametrize(
    "url",
    ["not a url", "http://[::1", "https://host:99999/t", "https://host:port/t", "https://" + "a" * 9000],
)
def test_twilio_odd_urls_are_rejected_not_crashes(url: str) -> None:
    cfg = config(P.TWILIO, TWILIO_TOKEN)
    signature = twilio_signature(TWILIO_TOKEN, url)
    rejected(cfg, {"X-Twilio-Signature": signature, "Content-Type": FORM}, b"a=b", url=url + "x")


def test_twilio_form_limits() -> None:
    cfg = config(P.TWILIO, TWILIO_TOKEN)
    headers = {"X-Twilio-Signature": twilio_signature(TWILIO_TOKEN, TWILIO_URL), "Content-Type": FORM}
    too_many = "&".join(f"p{n}=v" for n in range(1001)).encode()
    assert "field limit" in rejected(cfg, headers, too_many, url=TWILIO_URL)
    assert "field limit" in rejected(cfg, headers, b"a=\xff\xfe", url=TWILIO_URL)


def test_twilio_refuses_a_body_the_signature_does_not_cover() -> None:
    cfg = config(P.TWILIO, TWILIO_TOKEN)
    url = "https://hooks.example.com/t?CallSid=CA1"
    bare = {"X-Twilio-Signature": twilio_signature(TWILIO_TOKEN, url)}
    check(cfg, bare, b"", url=url, method="GET")  # a GET: the URL is all there is
    assert "neither form parameters" in rejected(
        cfg, bare | {"Content-Type": "application/json"}, b"{}", url=url
    )
    assert "neither form parameters" in rejected(
        cfg, bare | {"Content-Type": FORM}, b"a=b", url=url, method="GET"
    )
