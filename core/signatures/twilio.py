"""Twilio: ``X-Twilio-Signature`` is the base64 HMAC-SHA1, keyed with the account's Auth Token, of the full
URL Twilio called followed by, for a form POST, every POST parameter as ``name + value`` sorted by name.

A JSON body is not in the signed string: Twilio adds ``bodySHA256=<hex SHA-256 of the body>`` to the URL's
query, so the URL's signature covers the body through its hash. As Twilio's own validators do, the URL is
tried as given and with its default port added or removed (Twilio's signer is not consistent about the port).
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import SplitResult, parse_qs, parse_qsl, urlsplit, urlunsplit

from core.signatures.common import SignedRequest, any_matches, decode_base64, decode_hex, digests_match
from core.signatures.exceptions import SignatureRejected
from schemas.verification import VerificationConfig

TWILIO_HEADER = "X-Twilio-Signature"
BODY_HASH_PARAMETER = "bodySHA256"
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
# Twilio's callbacks carry a few dozen parameters; a form with more is refused rather than sorted and hashed.
MAX_FORM_FIELDS = 1000
MAX_URL_CHARS = 8192
_DEFAULT_PORTS = {"https": 443, "http": 80}


def verify_twilio(config: VerificationConfig, request: SignedRequest) -> None:
    received = decode_base64(request.headers.require(TWILIO_HEADER), TWILIO_HEADER)
    parts = _split(request.url)
    query = parse_qs(parts.query, keep_blank_values=True)
    if BODY_HASH_PARAMETER in query:
        _check_body_hash(query[BODY_HASH_PARAMETER], request.body)
        parameter_lists = [""]
    elif request.method.upper() == "POST" and _is_form(request):
        parameter_lists = _form_parameters(request.body)
    elif request.body.strip():
        # Neither a form (its parameters are signed) nor hashed into the URL: nothing would cover this body,
        # and a captured signature of the bare URL would carry any body an attacker liked.
        raise SignatureRejected("body is neither form parameters nor covered by bodySHA256")
    else:
        parameter_lists = [""]
    token = config.secret.get_secret_value().encode("utf-8")
    expected = [
        _sign(token, url + parameters)
        for url in _url_variants(request.url, parts)
        for parameters in parameter_lists
    ]
    if not any_matches(received, expected):
        raise SignatureRejected(f"{TWILIO_HEADER} does not match the URL and parameters")


def _sign(token: bytes, signed: str) -> bytes:
    return hmac.new(token, signed.encode("utf-8"), hashlib.sha1).digest()


def _check_body_hash(values: list[str], body: bytes) -> None:
    if len(values) != 1:
        raise SignatureRejected(f"{BODY_HASH_PARAMETER} appears more than once in the URL")
    claimed = decode_hex(values[0], BODY_HASH_PARAMETER)
    if not digests_match(hashlib.sha256(body).digest(), claimed):
        raise SignatureRejected(f"{BODY_HASH_PARAMETER} does not match the body")


def _is_form(request: SignedRequest) -> bool:
    content_type = request.headers.get("Content-Type") or ""
    return content_type.split(";", 1)[0].strip().lower() == FORM_CONTENT_TYPE


def _form_parameters(body: bytes) -> list[str]:
    """The signed parameter string: names sorted, each name's values sorted. Twilio's Python validator also
    drops repeated identical values and its Node validator keeps them, so with a repeat both are tried."""
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
    except (UnicodeDecodeError, ValueError) as error:
        raise SignatureRejected("form body is not UTF-8 form data within the field limit") from error
    by_name: dict[str, list[str]] = {}
    for name, value in pairs:
        by_name.setdefault(name, []).append(value)
    kept = "".join(name + value for name in sorted(by_name) for value in sorted(by_name[name]))
    unique = "".join(name + value for name in sorted(by_name) for value in sorted(set(by_name[name])))
    return [kept] if kept == unique else [kept, unique]


def _split(url: str) -> SplitResult:
    if len(url) > MAX_URL_CHARS:
        raise SignatureRejected(f"request URL longer than {MAX_URL_CHARS} characters")
    try:
        return urlsplit(url)
    except ValueError as error:  # an unbalanced IPv6 bracket, for one
        raise SignatureRejected("request URL cannot be parsed") from error


def _url_variants(url: str, parts: SplitResult) -> list[str]:
    """The URL as given, plus the same URL with the scheme's default port added, or removed when present."""
    default = _DEFAULT_PORTS.get(parts.scheme.lower())
    hostname = parts.hostname
    if default is None or hostname is None:
        return [url]
    try:
        port = parts.port
    except ValueError as error:
        raise SignatureRejected("request URL has an invalid port") from error
    host = parts.netloc.rsplit("@", 1)[-1]
    userinfo = parts.netloc[: len(parts.netloc) - len(host)]
    other = f"{userinfo}{host}:{default}" if port is None else userinfo + host.rsplit(":", 1)[0]
    return [url, urlunsplit(parts._replace(netloc=other))]
