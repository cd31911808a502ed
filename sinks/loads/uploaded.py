"""The size of a load's source as the object store holds it, checked when the load is requested.

An object store that cannot answer (S3 unreachable, refusing the service's key, throttling; a failing disk)
is StorageUnavailable, told apart from an object that is not there: the caller is to retry later, not to
upload the file again. The message names what failed, never a bucket, a key or an endpoint; the full error
goes to the log.
"""

from __future__ import annotations

import logging
import sys

from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.storage import storage_failure
from sinks.loads.read import UPLOAD_STORAGE
from sinks.objectstore import NoSuchKey, ObjectStore, StoreUnavailable
from sinks.objectstore import exceptions as failures

log = logging.getLogger(__name__)
_REFUSED = {"403", "AccessDenied", "Forbidden", "InvalidAccessKeyId", "SignatureDoesNotMatch"}
_BUSY = {"SlowDown", "429"}
_DOWN = {"ServiceUnavailable", "503", "InternalError", "500"}


def uploaded_size(store: ObjectStore, key: str) -> int | None:
    """Bytes of the object at ``key``; None when there is none. Raises StorageUnavailable."""
    try:
        return store.size(key)
    except NoSuchKey:
        return None
    except StoreUnavailable as error:  # the S3 store's own report (no connection, no answer in time), logged
        raise StorageUnavailable(f"The {UPLOAD_STORAGE} is unavailable: {error.reason}") from error
    except OSError as error:
        log.warning("the upload storage failed", exc_info=True)
        raise storage_failure(error, UPLOAD_STORAGE) from error
    except Exception as error:
        reason = _s3_client_failure(error)
        if reason is None:
            raise
        log.warning("the upload storage failed", exc_info=True)
        raise StorageUnavailable(f"The {UPLOAD_STORAGE} is unavailable: {reason}") from error


def _s3_client_failure(error: Exception) -> str | None:
    """What went wrong, when ``error`` is boto3's report of an S3 call that failed; else None."""
    botocore = sys.modules.get("botocore.exceptions")  # not imported: no S3 store, no boto3 error
    if botocore is None:
        return None
    if isinstance(error, botocore.ClientError):
        code = str(error.response.get("Error", {}).get("Code", ""))
        if code in _REFUSED:
            return "the S3 service refused the service's key"
        if code in _BUSY:
            return failures.THROTTLING
        if code in _DOWN:
            return failures.DOWN
        return f"the S3 service answered {code or 'an error'}"
    if isinstance(error, botocore.ReadTimeoutError):
        return failures.NO_ANSWER
    if isinstance(error, botocore.ConnectionError | botocore.HTTPClientError):
        return failures.UNREACHABLE
    if isinstance(error, botocore.BotoCoreError):
        return f"the S3 service could not be used ({type(error).__name__})"
    return None
