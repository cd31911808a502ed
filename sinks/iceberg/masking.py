"""Encryption of masked columns: AES-256-GCM under a per-company key derived from SVC_SECRET_KEY.

A stored value reads `v1:<base64(nonce | ciphertext | tag)>`. The version prefix lets a later key scheme
live beside this one. The company id is both the HKDF info (one key per company) and the GCM associated
data, so a value copied into another company's table fails to decrypt instead of revealing anything.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from core.lru import Lru
from sinks.iceberg.exceptions import MaskingError

TOKEN_PREFIX = "v1:"  # noqa: S105 - a format marker, not a secret
_NONCE_BYTES = 12
_TAG_BYTES = 16
_HKDF_SALT = b"svc/masked-columns/v1"


class Masker:
    """Encrypts and decrypts masked values; derived keys are kept in a small LRU (HKDF is not free)."""

    def __init__(self, secret_key: str, *, cache_size: int = 256) -> None:
        if len(secret_key) < 16:
            raise ValueError("the masking secret must be at least 16 characters")
        self._secret = secret_key.encode()
        self._ciphers: Lru[str, AESGCM] = Lru(cache_size)

    def _cipher(self, company_id: str) -> AESGCM:
        return self._ciphers.get_or_make(company_id, lambda: self._derive(company_id))

    def _derive(self, company_id: str) -> AESGCM:
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=company_id.encode()).derive(
            self._secret
        )
        return AESGCM(key)

    def encrypt(self, company_id: str, plaintext: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._cipher(company_id).encrypt(nonce, plaintext.encode(), company_id.encode())
        return TOKEN_PREFIX + base64.b64encode(nonce + sealed).decode("ascii")

    def decrypt(self, company_id: str, token: str) -> str:
        if not token.startswith(TOKEN_PREFIX):
            raise MaskingError("masked value has an unknown format (expected the v1: prefix)")
        try:
            raw = base64.b64decode(token[len(TOKEN_PREFIX) :], validate=True)
        except (binascii.Error, ValueError):
            raise MaskingError("masked value is not valid base64") from None
        if len(raw) < _NONCE_BYTES + _TAG_BYTES:
            raise MaskingError("masked value is truncated")
        try:
            plain = self._cipher(company_id).decrypt(
                raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], company_id.encode()
            )
        except InvalidTag:
            raise MaskingError(
                "masked value cannot be decrypted: it was altered or belongs to another company"
            ) from None
        return plain.decode()

    def encryptor(self, company_id: str) -> Callable[[str], str]:
        cipher = self._cipher(company_id)
        aad = company_id.encode()

        def encrypt(plaintext: str) -> str:
            nonce = os.urandom(_NONCE_BYTES)
            return TOKEN_PREFIX + base64.b64encode(
                nonce + cipher.encrypt(nonce, plaintext.encode(), aad)
            ).decode("ascii")

        return encrypt

    def decryptor(self, company_id: str) -> Callable[[str], str]:
        return lambda token: self.decrypt(company_id, token)
