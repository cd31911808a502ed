"""Multipart file upload for /load-from-s3: ``POST {base_url}/clients/svcdb-intake/multipart-*`` (client API
key) and, for the local object store, ``PUT {base_url}/clients/svcdb-intake/parts/<token>`` (the signed link
is the credential). Uploads belong to the caller's company; another company's upload answers as not found.
Incomplete uploads count against the company's upload quota (``ingress/analytics/upload_quota.py``) until they
are completed, aborted or expire."""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from datetime import UTC, datetime
from typing import Any, BinaryIO, cast

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ingress.analytics import upload_quota as quota
from ingress.analytics.signed_links import LinkError, make_token, read_token
from ingress.body_reader import BodyReader, BodyTooLong
from ingress.deps import ClientCaller, Sessions, SessionsDep, SettingsDep, StoreDep
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.ids import new_id
from schemas.intake import (
    AbortAnswer,
    AbortRequest,
    CompleteAnswer,
    CompleteRequest,
    InitiateAnswer,
    InitiateRequest,
    PartUrlsAnswer,
    PartUrlsRequest,
    UploadRef,
)
from schemas.settings import Settings
from sinks.db.analytics import uploads
from sinks.db.models import Upload
from sinks.objectstore import InvalidPart, NoSuchUpload, ObjectStore

log = logging.getLogger(__name__)
router = APIRouter(prefix="/clients/svcdb-intake", tags=["uploads"])
PART_PATH = "/clients/svcdb-intake/parts/"
LINK_PURPOSE = "upload-part"
MAX_FILE_NAME = 200
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_file_name(name: str) -> str:
    """The last path segment of ``name`` in ``[A-Za-z0-9._-]`` (the extension kept), never hidden or empty."""
    base = re.split(r"[/\\]", name)[-1]
    ascii_name = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii")
    cleaned = _UNSAFE.sub("_", ascii_name).lstrip(".") or "file"
    if len(cleaned) > MAX_FILE_NAME:
        stem, dot, extension = cleaned.rpartition(".")
        keep = extension[:20] if dot and stem else ""
        cleaned = cleaned[: MAX_FILE_NAME - len(keep) - 1] + "." + keep if keep else cleaned[:MAX_FILE_NAME]
    return cleaned


def part_token(
    secret_key: str, *, upload_id: str, company_id: str, key: str, part_number: int, expires_at: int
) -> str:
    """The token of one part's link: good for this upload, key and part number only, until ``expires_at``."""
    claims: dict[str, str | int] = {"u": upload_id, "c": company_id, "k": key, "p": part_number}
    return make_token(secret_key, claims, expires_at, purpose=LINK_PURPOSE)


def _not_found(upload_id: str) -> ApiError:
    return ApiError(404, f"Upload {upload_id} not found")


def _caller_upload(sessions: Sessions, caller: Principal, ref: UploadRef) -> Upload:
    """The caller's upload named by ``ref``, in any state; 404 when it is not the company's."""
    with sessions() as session:
        upload = uploads.get(session, caller.company_id, ref.upload_id)
        if upload is None:
            raise _not_found(ref.upload_id)
        session.expunge(upload)
    if upload.s3_key != ref.s3_key:
        raise ApiError(400, f"s3Key does not match upload {ref.upload_id}")
    return upload


def _open_upload(sessions: Sessions, caller: Principal, ref: UploadRef) -> Upload:
    """The caller's upload named by ``ref``, still open for parts; refused with the matching status."""
    upload = _caller_upload(sessions, caller, ref)
    if upload.state == uploads.UploadState.COMPLETED:
        raise ApiError(409, f"Upload {ref.upload_id} is already completed")
    if upload.state in uploads.ENDED:
        raise quota.gone(upload, upload.state)
    if upload.state != uploads.UploadState.UPLOADING:
        raise ApiError(409, f"Upload {ref.upload_id} is being completed")
    return upload


def _discard_quietly(store: ObjectStore, key: str, store_upload_id: str) -> None:
    """Best effort: an upload the store started but the database never recorded holds no quota and no row;
    one this cannot discard is logged (an S3 lifecycle rule for incomplete multipart uploads removes it)."""
    try:
        store.discard_multipart(key, store_upload_id)
    except Exception:
        log.warning("an unrecorded upload could not be discarded from the store", extra={"key": key})


@router.post("/multipart-initiate", response_model_by_alias=True)
def multipart_initiate(
    body: InitiateRequest, caller: ClientCaller, sessions: SessionsDep, settings: SettingsDep, store: StoreDep
) -> InitiateAnswer:
    upload_id = new_id()
    key = f"uploads/{caller.company_id}/{upload_id}/{safe_file_name(body.file_name)}"
    # The store is called outside the company's lock: on SQLite that lock is the database's write lock,
    # and an object store that is slow to answer would hold every writer of the service behind it. A
    # read of the count first spares the store an upload the quota refuses anyway; the count is checked
    # again under the lock, and an upload the quota refuses there is discarded from the store.
    with sessions() as session:
        used = uploads.usage(session, caller.company_id)
    if used.open_uploads >= settings.upload_max_open:
        raise quota.too_many_open(settings, used)
    store_upload_id = store.initiate_multipart(key)
    try:
        with sessions.begin() as session:
            try:
                uploads.check_open(session, caller.company_id, settings.upload_max_open)
            except uploads.QuotaExceeded as error:
                raise quota.too_many_open(settings, error.usage) from error
            upload = uploads.create(
                session,
                upload_id=upload_id,
                company_id=caller.company_id,
                created_by=caller.user_id,
                file_name=body.file_name[:255],
                key=key,
                s3_key=store.object_key(key),
                s3_uri=store.uri(key),
                store_upload_id=store_upload_id,
                now=datetime.now(UTC),
            )
    except BaseException:
        _discard_quietly(store, key, store_upload_id)
        raise
    answer = InitiateAnswer(upload_id=upload.id, s3_key=upload.s3_key, s3_uri=upload.s3_uri)
    log.info("upload started", extra={"upload_id": upload_id, "company_id": caller.company_id})
    return answer


@router.post("/multipart-part-urls", response_model_by_alias=True)
def multipart_part_urls(
    body: PartUrlsRequest,
    request: Request,
    caller: ClientCaller,
    sessions: SessionsDep,
    settings: SettingsDep,
    store: StoreDep,
) -> PartUrlsAnswer:
    upload = _open_upload(sessions, caller, body)
    _check_held_bytes(sessions, settings, store, upload)
    lifetime = settings.upload_link_seconds
    expires_at = int(time.time()) + lifetime
    urls: dict[str, str] = {}
    for number in body.part_numbers:
        url = store.presigned_part_url(upload.key, upload.store_upload_id, number, lifetime)
        if url is None:
            token = part_token(
                settings.secret_key,
                upload_id=upload.id,
                company_id=upload.company_id,
                key=upload.key,
                part_number=number,
                expires_at=expires_at,
            )
            url = str(request.url_for("put_upload_part", token=token))
        urls[str(number)] = url
    return PartUrlsAnswer(part_urls=urls, expires_at=iso_utc(datetime.fromtimestamp(expires_at, UTC)) or "")


def _check_held_bytes(sessions: Sessions, settings: Settings, store: ObjectStore, upload: Upload) -> None:
    """No new links while the company's incomplete uploads hold its whole quota. The upload's own parts are
    measured first: on S3 they go straight to the store, and this is where the service learns of them."""
    try:
        held = store.multipart_bytes(upload.key, upload.store_upload_id)
    except NoSuchUpload as error:
        raise _not_found(upload.id) from error
    with sessions.begin() as session:
        uploads.record_held(session, upload.company_id, upload.id, held)
        used = uploads.usage(session, upload.company_id)
    if used.held_bytes >= settings.upload_quota_bytes:
        raise quota.over_bytes(settings, used)


def _part_claims(secret_key: str, token: str) -> dict[str, Any]:
    try:
        claims = read_token(secret_key, token, now=time.time(), purpose=LINK_PURPOSE)
    except LinkError as error:
        raise ApiError(403, f"Upload link refused: {error.reason}") from error
    if not all(isinstance(claims.get(name), str) for name in ("u", "c", "k")) or not isinstance(
        claims.get("p"), int
    ):
        raise ApiError(403, "Upload link refused: The link is malformed")
    return claims


def _part_target(sessions: Sessions, claims: dict[str, Any]) -> Upload:
    with sessions() as session:
        upload = uploads.get(session, str(claims["c"]), str(claims["u"]))
        if upload is not None:
            session.expunge(upload)
    if upload is None or upload.key != claims["k"]:
        raise _not_found(str(claims["u"]))
    if upload.state != uploads.UploadState.UPLOADING:
        raise quota.not_open(upload.id, upload.state)
    return upload


def _declared_length(request: Request, limit: int) -> int | None:
    declared = request.headers.get("content-length")
    if declared is None or not declared.isdigit():
        return None
    if int(declared) > limit:
        raise ApiError(413, f"An upload part has at most {limit} bytes")
    return int(declared)


def _store_part(
    sessions: Sessions,
    settings: Settings,
    store: ObjectStore,
    upload: Upload,
    number: int,
    body: BodyReader,
    declared: int | None,
) -> str:
    """Reserve the part's bytes, store it, then settle what the upload holds; a part that fails or that
    arrives for an upload ended meanwhile holds nothing."""
    meter = quota.PartMeter(sessions, settings, store, upload)
    try:
        if declared is not None:
            meter.take(declared, declared)
        etag = store.put_part(
            upload.key, upload.store_upload_id, number, cast(BinaryIO, quota.MeteredBody(body, meter))
        )
    except BaseException:
        meter.release()
        raise
    state = meter.settle()
    if state != uploads.UploadState.UPLOADING.value:
        # Aborted or expired while the part streamed in: the part is not kept either.
        if state in uploads.ENDED:
            store.discard_multipart(upload.key, upload.store_upload_id)
        raise quota.not_open(upload.id, state)
    return etag


@router.put("/parts/{token}", name="put_upload_part")
async def put_upload_part(
    token: str, request: Request, sessions: SessionsDep, settings: SettingsDep, store: StoreDep
) -> Response:
    claims = _part_claims(settings.secret_key, token)
    upload = await run_in_threadpool(_part_target, sessions, claims)
    # A part larger than the whole quota could never be taken: refused as too large, not "retry later".
    limit = min(settings.upload_max_part_bytes, settings.upload_quota_bytes)
    declared = _declared_length(request, limit)
    reader = BodyReader(request.stream(), limit)
    try:
        number = int(claims["p"])
        etag = await run_in_threadpool(
            _store_part, sessions, settings, store, upload, number, reader, declared
        )
    except BodyTooLong as error:
        raise ApiError(413, f"An upload part has at most {limit} bytes") from error
    except NoSuchUpload as error:
        state = await run_in_threadpool(quota.state_of, sessions, upload)
        raise quota.not_open(upload.id, state) from error
    return Response(status_code=200, headers={"ETag": etag})


def _complete(
    sessions: Sessions, store: ObjectStore, caller: Principal, body: CompleteRequest
) -> CompleteAnswer:
    upload = _open_upload(sessions, caller, body)
    with sessions.begin() as session:
        claimed = uploads.claim_completion(session, caller.company_id, upload.id)
    if not claimed:
        state = quota.state_of(sessions, upload)
        if state in uploads.ENDED:
            raise quota.gone(upload, state)
        raise ApiError(409, f"Upload {upload.id} is already completed or being completed")
    try:
        store.complete_multipart(upload.key, upload.store_upload_id, body.part_e_tags)
        size = store.size(upload.key)
    except BaseException as error:
        with sessions.begin() as session:
            uploads.release_completion(session, caller.company_id, upload.id)
        if isinstance(error, InvalidPart):
            raise ApiError(400, str(error)) from error
        if isinstance(error, NoSuchUpload):
            raise _not_found(upload.id) from error
        raise
    with sessions.begin() as session:
        uploads.mark_completed(
            session,
            caller.company_id,
            upload.id,
            size_bytes=size,
            part_count=len(body.part_e_tags),
            now=datetime.now(UTC),
        )
    log.info(
        "upload completed",
        extra={
            "upload_id": upload.id,
            "company_id": caller.company_id,
            "size_bytes": size,
            "parts": len(body.part_e_tags),
        },
    )
    return CompleteAnswer(s3_uri=upload.s3_uri, size_bytes=size)


@router.post("/multipart-complete", response_model_by_alias=True)
def multipart_complete(
    body: CompleteRequest, caller: ClientCaller, sessions: SessionsDep, store: StoreDep
) -> CompleteAnswer:
    return _complete(sessions, store, caller, body)


@router.post("/multipart-abort", response_model_by_alias=True)
def multipart_abort(
    body: AbortRequest, caller: ClientCaller, sessions: SessionsDep, store: StoreDep
) -> AbortAnswer:
    upload = _caller_upload(sessions, caller, body)
    state: str | None = upload.state
    if state == uploads.UploadState.UPLOADING.value:
        with sessions.begin() as session:
            if uploads.end(
                session, caller.company_id, upload.id, uploads.UploadState.ABORTED, datetime.now(UTC)
            ):
                state = uploads.UploadState.ABORTED.value
        if state != uploads.UploadState.ABORTED.value:
            state = quota.state_of(sessions, upload)  # completed or expired just now
    if state == uploads.UploadState.COMPLETED.value:
        raise ApiError(409, f"Upload {upload.id} is completed; a completed upload cannot be aborted")
    if state not in uploads.ENDED:
        raise ApiError(409, f"Upload {upload.id} is being completed; it cannot be aborted")
    quota.discard(sessions, store, upload)
    log.info("upload aborted", extra={"upload_id": upload.id, "company_id": caller.company_id})
    return AbortAnswer(upload_id=upload.id, state=str(state))
