"""Large bodies by reference (issue 43): which bodies leave the payload row, under which key, how a body read
back is checked; and the store's side on a local directory (put, read inline or by reference, a missing or
damaged object, a store that cannot write)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.webhooks.bodies import (
    DAMAGED,
    MISSING,
    Body,
    BodyRef,
    StoredBody,
    body_key,
    by_reference,
    checked,
    digest,
    stored_body,
    text_of,
    webhook_prefix,
)
from schemas.settings import Settings
from sinks import webhook_bodies
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.objectstore import ObjectStore, object_store

pytestmark = pytest.mark.unit

COMPANY, WEBHOOK, PAYLOAD = "c" * 32, "w" * 32, "p" * 32


def test_a_body_leaves_its_row_only_past_the_limit() -> None:
    assert not by_reference(64 * 1024, 64 * 1024)
    assert by_reference(64 * 1024 + 1, 64 * 1024)
    assert by_reference(1, 0)  # a limit of 0 keeps every non-empty body by reference
    assert not by_reference(0, 0)


def test_keys_are_by_company_then_webhook_then_payload_row() -> None:
    key = body_key(COMPANY, WEBHOOK, PAYLOAD)
    assert key == f"webhook-bodies/{COMPANY}/{WEBHOOK}/{PAYLOAD}"
    assert key.startswith(webhook_prefix(COMPANY, WEBHOOK))
    assert not body_key(COMPANY, "v" * 32, PAYLOAD).startswith(webhook_prefix(COMPANY, WEBHOOK))


def test_a_body_read_back_must_have_the_recorded_size_and_digest() -> None:
    data = b'{"order": "caf\xc3\xa9"}'
    ref = BodyRef("k", len(data), hashlib.sha256(data).hexdigest())
    assert digest(data) == ref.sha256
    assert checked(data, ref) == Body('{"order": "café"}')
    assert checked(data[:-1], ref) == Body("", DAMAGED)  # cut short
    assert checked(data.replace(b"caf", b"CAF"), ref) == Body("", DAMAGED)  # same size, other bytes


def test_undecodable_bytes_read_as_the_trigger_stores_them_inline() -> None:
    assert text_of(b"ok \xff") == "ok \ufffd"


def test_a_row_without_all_three_reference_columns_is_inline() -> None:
    assert stored_body("{}", None, None, None) == StoredBody("{}")
    assert stored_body("", "k", 3, None) == StoredBody("")
    assert stored_body("", "k", 3, "s") == StoredBody("", BodyRef("k", 3, "s"))


@pytest.fixture
def store(tmp_path: Path) -> ObjectStore:
    return object_store(Settings(data_dir=tmp_path))


def test_put_then_read_back_inline_and_by_reference(store: ObjectStore) -> None:
    data = b"x" * 1000
    offloaded = webhook_bodies.put(store, COMPANY, WEBHOOK, data)
    assert offloaded.ref == BodyRef(body_key(COMPANY, WEBHOOK, offloaded.payload_id), 1000, digest(data))
    assert store.get_bytes(offloaded.ref.key) == data
    by_ref = StoredBody("", offloaded.ref)
    assert webhook_bodies.read(store, by_ref) == Body("x" * 1000)
    assert webhook_bodies.read(store, StoredBody("inline")) == Body("inline")

    store.put_bytes(offloaded.ref.key, b"y" * 1000)
    assert webhook_bodies.read(store, by_ref) == Body("", DAMAGED)
    webhook_bodies.discard(store, offloaded.ref.key)
    assert webhook_bodies.read(store, by_ref) == Body("", MISSING)
    webhook_bodies.discard(store, offloaded.ref.key)  # nothing there: no error


def test_read_all_reads_each_object_once(store: ObjectStore) -> None:
    first = webhook_bodies.put(store, COMPANY, WEBHOOK, b"one")
    second = webhook_bodies.put(store, COMPANY, WEBHOOK, b"two")
    rows = [StoredBody("", first.ref), StoredBody("a"), StoredBody("", first.ref), StoredBody("", second.ref)]
    assert webhook_bodies.read_all(store, rows) == [Body("one"), Body("a"), Body("one"), Body("two")]


def test_a_webhooks_bodies_go_together_and_no_other(store: ObjectStore) -> None:
    mine = [webhook_bodies.put(store, COMPANY, WEBHOOK, b"a").ref.key for _ in range(3)]
    other = webhook_bodies.put(store, COMPANY, "v" * 32, b"b").ref.key
    assert webhook_bodies.delete_webhook_bodies(store, COMPANY, WEBHOOK) == 3
    assert not any(store.exists(key) for key in mine)
    assert store.exists(other)


def test_a_store_that_cannot_write_is_unavailable(store: ObjectStore, tmp_path: Path) -> None:
    blocked = tmp_path / "objects" / "webhook-bodies" / COMPANY / WEBHOOK
    blocked.parent.mkdir(parents=True)
    blocked.write_bytes(b"")  # a file where the webhook's folder must go: the write fails as a disk would
    with pytest.raises(StorageUnavailable, match=r"^The object storage is unavailable: "):
        webhook_bodies.put(store, COMPANY, WEBHOOK, b"data")
