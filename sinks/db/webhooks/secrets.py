"""A webhook's verification secret at rest: sealed with the service's key, stored beside what answers show.

``webhookConfig.verificationConfig`` is stored as every answer shows it (``VerificationConfigView``: the
provider, its non-secret fields and ``secretHint``) plus ``sealedSecret``, the secret encrypted as masked
column values are (``sinks/iceberg/masking.Masker``: AES-256-GCM, a key derived from ``SVC_SECRET_KEY`` by
HKDF, the context as associated data). The context is the company under a name of its own, so the key that
seals a company's webhook secrets is not the key of its masked columns, and a sealed secret copied into
another company's webhook does not open. Answers drop ``sealedSecret`` (``answered``); the trigger opens it
once per cached webhook row (``verification_of``).
"""

from __future__ import annotations

from typing import Any, Protocol

from schemas.verification import VerificationConfig, VerificationConfigView


class Masker(Protocol):
    """``sinks.iceberg.masking.Masker`` by its shape (sinks.iceberg imports sinks.db, not the reverse)."""

    def encrypt(self, company_id: str, plaintext: str) -> str: ...

    def decrypt(self, company_id: str, token: str) -> str: ...


VERIFICATION = "verificationConfig"
SEALED_SECRET = "sealedSecret"  # noqa: S105 - the name of a stored field, not a secret
SECRET_HINT = "secretHint"  # noqa: S105 - the name of an answered field, not a secret


def _context(company_id: str) -> str:
    return f"webhook-verification/{company_id}"


def stored_verification(masker: Masker, company_id: str, config: VerificationConfig) -> dict[str, Any]:
    """What the configuration keeps: the answer's fields and the sealed secret."""
    stored = VerificationConfigView.from_config(config).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    stored[SEALED_SECRET] = masker.encrypt(_context(company_id), config.secret.get_secret_value())
    return stored


def answered(config: dict[str, Any]) -> dict[str, Any]:
    """A stored configuration as answers show it: without the sealed secret."""
    verification = config.get(VERIFICATION)
    if not isinstance(verification, dict) or SEALED_SECRET not in verification:
        return config
    shown = {name: value for name, value in verification.items() if name != SEALED_SECRET}
    return {**config, VERIFICATION: shown}


def stored_secret(masker: Masker, company_id: str, verification: dict[str, Any]) -> str:
    """The secret of a stored ``verificationConfig``; raises ``MaskingError`` when it cannot be opened
    (``SVC_SECRET_KEY`` changed, or the value was altered)."""
    return masker.decrypt(_context(company_id), str(verification.get(SEALED_SECRET, "")))


def verification_of(masker: Masker, company_id: str, verification: dict[str, Any]) -> VerificationConfig:
    """The stored ``verificationConfig`` with its secret opened, as ``core.signatures.verify`` takes it."""
    fields = {name: value for name, value in verification.items() if name not in (SEALED_SECRET, SECRET_HINT)}
    secret = stored_secret(masker, company_id, verification)
    return VerificationConfig.model_validate({**fields, "secret": secret})
