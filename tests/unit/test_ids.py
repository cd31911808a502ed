"""Every id svc creates is a UUIDv7: time-ordered, 32 hex digits, the same shape as the older random ids."""

from __future__ import annotations

import uuid

import pytest

from schemas import ids
from schemas.envelopes import Envelope
from schemas.ids import new_id
from sinks import credentials

pytestmark = pytest.mark.unit


def test_every_id_source_makes_version_7() -> None:
    """Key ids, record ids, job, upload, load and request ids all come from schemas.ids.new_id (see
    tests/unit/test_credentials.py for its order and format)."""
    for value in (new_id(), credentials.new_id(), Envelope(type="t").id):
        assert uuid.UUID(hex=value).version == 7


def test_ids_stay_unique_across_refills_of_the_random_pool() -> None:
    made = [new_id() for _ in range(3 * ids._IDS_PER_REFILL + 7)]
    assert len(set(made)) == len(made)
    assert {uuid.UUID(hex=value).version for value in made} == {7}
    # The random part (past the 48-bit time) differs id to id, refill boundaries included.
    assert len({value[12:] for value in made}) == len(made)


def test_a_forked_child_draws_new_random_bytes() -> None:
    """After a fork the child must not hand out the ids its parent's unused bytes would give."""
    new_id()
    left = ids._pool[ids._offset :]
    assert left
    ids._forget_pool()  # what os.register_at_fork runs in the child
    assert ids._pool == b"" and ids._offset == 0
    new_id()
    assert ids._pool[: len(left)] != left
