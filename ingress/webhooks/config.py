"""Validation of a webhook configuration beyond its shape: compiled expressions and scripts, handler
resources that exist in the caller's company and that the caller may use, and the verification secret,
stored sealed (``sinks/db/webhooks/secrets.py``).

**Decision (keeping the secret):** ``/update`` replaces the whole configuration, but a
``verificationConfig`` without ``secret`` keeps the stored secret when its ``provider`` is the stored one, so
a configuration read with ``/get`` can be sent back changed elsewhere (its ``secretHint`` is ignored). A
different provider needs its own secret (400 otherwise); leaving ``verificationConfig`` out turns the check
off, as leaving out any other part resets it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session

from core.versions import LATEST_PUBLISHED, VersionNotResolved, resolve
from core.webhooks.transform import TransformConfigError, compile_jsonpath_mappings
from ingress.errors import ApiError, messages_of
from schemas.admin import Principal
from schemas.enums import AccessLevel
from schemas.webhooks import WebhookConfig, WebhookResourceType
from sinks.db import resources
from sinks.db.analytics import tables
from sinks.db.webhooks.secrets import SECRET_HINT, VERIFICATION, stored_secret, stored_verification
from sinks.iceberg.exceptions import MaskingError
from sinks.iceberg.masking import Masker
from sinks.scripting.sandbox import ScriptError, compile_check
from sinks.scripting.workers import SandboxBusy

NAME_REQUIRED = "Webhook must have a name in the configuration"
VALIDATION_ARGS = ("headers", "body", "queryParams")
TRANSFORM_ARGS = ("payload", "headers", "queryParams")
# Using a handler from a webhook needs at least this level on it (company admins hold ADMIN on everything).
USE_LEVEL = AccessLevel.READ


def parse_config(raw: dict[str, Any]) -> WebhookConfig:
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ApiError(400, NAME_REQUIRED)
    try:
        return WebhookConfig.model_validate(raw)
    except ValidationError as exc:
        raise ApiError(400, *messages_of(exc, prefix="webhookConfig")) from exc


def _script_problems(config: WebhookConfig) -> list[str]:
    try:
        return _check_scripts(config)
    except (
        SandboxBusy
    ) as busy:  # the machine gave the checker no CPU in time: nothing is wrong with the script
        raise ApiError(503, str(busy), headers={"Retry-After": str(busy.retry_after)}) from None


def _check_scripts(config: WebhookConfig) -> list[str]:
    problems = []
    validation = config.validation_config
    if validation.validation_script:
        try:
            compile_check(validation.validation_script, VALIDATION_ARGS)
        except ScriptError as exc:
            problems.append(f"webhookConfig.validationConfig.validationScript: {exc}")
    transform = config.payload_transform_config
    if transform.transform_script:
        try:
            compile_check(transform.transform_script, TRANSFORM_ARGS)
        except ScriptError as exc:
            problems.append(f"webhookConfig.payloadTransformConfig.transformScript: {exc}")
    if transform.json_path_mappings:
        try:
            compile_jsonpath_mappings(transform.json_path_mappings)
        except TransformConfigError as exc:
            problems.append(f"webhookConfig.payloadTransformConfig.jsonPathMappings: {exc}")
    return problems


def _check_handler(session: Session, caller: Principal, config: WebhookConfig) -> None:
    execution = config.resource_execution_config
    if execution is not None and execution.svc_db_config is not None:
        _check_table(session, caller, execution.svc_db_config.target_table_id)
    if (
        execution is None
        or execution.resource_type is WebhookResourceType.SVCDB
        or execution.resource_id is None
    ):
        return
    kind = execution.resource_type.value
    handler = resources.get_handler(session, caller.company_id, execution.resource_id)
    if handler is None or handler.type != kind:
        raise ApiError(
            400, f"Target resource does not belong to your company: {kind} (ID: {execution.resource_id})"
        )
    level = resources.access_level(session, caller.company_id, caller.user_id, handler.id)
    if level is None or not level.allows(USE_LEVEL):
        raise ApiError(
            403, f"API key does not have permission to access the target {kind} (ID: {handler.id})"
        )
    # After the access check, so that a caller who may not use the handler learns nothing of its versions.
    versions = resources.versions_of(session, caller.company_id, handler.id)
    try:
        resolve(versions, execution.version or LATEST_PUBLISHED, f"{kind} {handler.id}")
    except VersionNotResolved as exc:
        raise ApiError(400, f"webhookConfig.resourceExecutionConfig.version: {exc}") from None


def _check_table(session: Session, caller: Principal, table_id: str) -> None:
    table = tables.get(session, caller.company_id, table_id)
    if table is None:
        raise ApiError(400, f"Target resource does not belong to your company: table (ID: {table_id})")
    access = tables.access(session, caller.company_id, caller.user_id, caller.is_admin, table.id)
    if not access.allows("WRITE"):
        raise ApiError(403, f"API key does not have permission to access the target table (ID: {table_id})")


_SECRET_PATH = "webhookConfig.verificationConfig.secret"  # noqa: S105 - a field path, not a secret


def _with_kept_secret(
    raw: dict[str, Any], masker: Masker, company_id: str, stored: dict[str, Any] | None
) -> dict[str, Any]:
    """``raw`` with the stored secret put back where the module's decision keeps it."""
    name = VERIFICATION if VERIFICATION in raw else "verification_config"
    given = raw.get(name)
    if not isinstance(given, dict):
        return raw
    # secretHint is what answers show: ignored, so that a configuration read with /get can be sent back.
    given = {
        key: value
        for key, value in given.items()
        if key not in (SECRET_HINT, "secret_hint") and not (key == "secret" and value is None)
    }
    previous = (stored or {}).get(VERIFICATION)
    if "secret" not in given and isinstance(previous, dict):
        if given.get("provider") == previous.get("provider"):
            try:
                given["secret"] = stored_secret(masker, company_id, previous)
            except MaskingError:
                raise ApiError(
                    400,
                    f"{_SECRET_PATH}: the stored secret can no longer be read (the service's key changed); "
                    "send the secret again",
                ) from None
        elif isinstance(given.get("provider"), str):
            raise ApiError(
                400,
                f"{_SECRET_PATH}: required when the provider changes (the stored secret is "
                f"{previous.get('provider')}'s)",
            )
    return {**raw, name: given}


def validated_config(
    session: Session,
    caller: Principal,
    raw: dict[str, Any],
    *,
    masker: Masker,
    stored: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The configuration as it is stored: validated, with the documented defaults filled in and the
    verification secret sealed. ``stored`` is the configuration it replaces (``/update``)."""
    config = parse_config(_with_kept_secret(raw, masker, caller.company_id, stored))
    problems = _script_problems(config)
    if problems:
        raise ApiError(400, *problems)
    _check_handler(session, caller, config)
    dumped = config.model_dump(mode="json", by_alias=True, exclude_none=True)
    if config.verification_config is not None:
        dumped[VERIFICATION] = stored_verification(masker, caller.company_id, config.verification_config)
    return dumped


def tested_config(raw: dict[str, Any]) -> dict[str, Any]:
    """A configuration tested unsaved (``/test-transform``): its shape, expressions and scripts checked as
    ``/create`` checks them; not its handler, which a test never calls, and without its verification part,
    which a test does not check (a sample carries no provider signature), so a provider without its secret
    (as ``/get`` answers it) is no obstacle."""
    unsigned = {key: value for key, value in raw.items() if key not in (VERIFICATION, "verification_config")}
    config = parse_config(unsigned)
    problems = _script_problems(config)
    if problems:
        raise ApiError(400, *problems)
    return config.model_dump(mode="json", by_alias=True, exclude_none=True)
