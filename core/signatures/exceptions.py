"""The one error of signature verification."""

from __future__ import annotations


class SignatureRejected(Exception):
    """A delivery whose signature is missing, malformed, wrong or stale.

    ``reason`` is for logs: it names headers and numbers, never the secret or a received value. The caller
    answers every rejection the same way (401 ``Invalid signature.``) so a forger learns nothing from it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
