"""Every id svc creates is a UUIDv7: time-ordered, 32 hex digits, the same shape as the older random ids."""

from __future__ import annotations

import uuid

import pytest

from schemas.envelopes import Envelope
from schemas.ids import new_id
from sinks import credentials

pytestmark = pytest.mark.unit


def test_every_id_source_makes_version_7() -> None:
    """Key ids, record ids, job, upload, load and request ids all come from schemas.ids.new_id (see
    tests/unit/test_credentials.py for its order and format)."""
    for value in (new_id(), credentials.new_id(), Envelope(type="t").id):
        assert uuid.UUID(hex=value).version == 7
