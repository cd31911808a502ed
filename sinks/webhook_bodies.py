"""Request bodies kept in the object store (``core/webhooks/bodies.py`` has the rules): the trigger's put, the
one read every reader of a payload row goes through, and the deletes (a trigger whose record failed, the
retention sweep, a deleted webhook).

Every call here is blocking I/O: the async trigger runs them on a worker thread. A store that cannot take or
answer a call (S3 away, a full or failing disk) raises StorageUnavailable with a message a caller may read;
the full error goes to the log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from core.webhooks.bodies import (
    MISSING,
    Body,
    BodyRef,
    Offloaded,
    StoredBody,
    body_key,
    checked,
    digest,
    webhook_prefix,
)
from sinks import credentials
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.storage import storage_failure
from sinks.objectstore import NoSuchKey, ObjectStore

log = logging.getLogger(__name__)
BODY_STORAGE = "object storage"
REFUSED = f"The {BODY_STORAGE} is unavailable: it refused the request body"


@contextmanager
def _storage(operation: str) -> Iterator[None]:
    """StorageUnavailable for any failure of the store in the block; ``NoSuchKey`` passes through."""
    try:
        yield
    except (StorageUnavailable, NoSuchKey):
        raise  # the S3 store's own report of an outage, logged where it was raised; or no object
    except OSError as error:
        log.warning("the request body storage failed", extra={"operation": operation}, exc_info=True)
        raise storage_failure(error, BODY_STORAGE) from error
    except Exception as error:  # S3 refusing the call (a key without the right, a missing bucket)
        log.error("the request body storage refused", extra={"operation": operation}, exc_info=True)
        raise StorageUnavailable(REFUSED) from error


def put(store: ObjectStore, company_id: str, webhook_id: str, data: bytes) -> Offloaded:
    """Store ``data`` as a new payload row's body; answers what that row records of it."""
    payload_id = credentials.new_id()
    ref = BodyRef(body_key(company_id, webhook_id, payload_id), len(data), digest(data))
    with _storage("put"):
        store.put_bytes(ref.key, data)
    return Offloaded(payload_id, ref)


def read(store: ObjectStore, stored: StoredBody) -> Body:
    """A payload row's body, inline or from the object store (``MISSING`` or ``DAMAGED`` when its object is
    gone or no longer the one recorded). Raises StorageUnavailable when the store cannot answer."""
    ref = stored.ref
    if ref is None:
        return Body(stored.inline)
    try:
        with _storage("get"):
            data = store.get_bytes(ref.key)
    except NoSuchKey:
        return Body("", MISSING)
    return checked(data, ref)


def read_all(store: ObjectStore, stored: Sequence[StoredBody]) -> list[Body]:
    """``read`` of each, every object read once (the attempts of one delivery share a payload row)."""
    known: dict[str, Body] = {}
    bodies: list[Body] = []
    for each in stored:
        if each.ref is None:
            bodies.append(Body(each.inline))
            continue
        body = known.get(each.ref.key)
        if body is None:
            body = known[each.ref.key] = read(store, each)
        bodies.append(body)
    return bodies


def delete(store: ObjectStore, key: str) -> None:
    """Remove a body's object (none there is no error). Raises StorageUnavailable when the store cannot."""
    with _storage("delete"):
        store.delete(key)


def discard(store: ObjectStore, key: str) -> None:
    """``delete``, best effort: an object left behind is only space, so a failure is logged, not raised."""
    try:
        delete(store, key)
    except StorageUnavailable:
        log.warning("a request body object was left behind", extra={"key": key})


def delete_webhook_bodies(store: ObjectStore, company_id: str, webhook_id: str) -> int:
    """Remove every body object of a webhook (its payload rows went with it); answers how many."""
    with _storage("delete_prefix"):
        return store.delete_prefix(webhook_prefix(company_id, webhook_id))
