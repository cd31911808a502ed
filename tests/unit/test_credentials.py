import hashlib
import re
import uuid

import pytest

from sinks import credentials

pytestmark = pytest.mark.unit


def test_client_key_is_opaque_and_stored_as_digest() -> None:
    issued = credentials.issue_client_key()
    assert issued.full_key.startswith(credentials.CLIENT_KEY_PREFIX)
    assert credentials.looks_like_client_key(issued.full_key)
    assert issued.secret_digest == hashlib.sha256(issued.full_key.encode()).hexdigest()
    assert issued.full_key not in issued.secret_digest


def test_poweruser_key_round_trip() -> None:
    issued = credentials.issue_poweruser_key()
    parsed = credentials.parse_poweruser_key(issued.full_key)
    assert parsed is not None
    key_id, secret = parsed
    assert key_id == issued.key_id
    assert credentials.same_digest(issued.secret_digest, secret)
    assert not credentials.same_digest(issued.secret_digest, secret + "x")


def test_webhook_key_round_trip() -> None:
    issued = credentials.issue_webhook_key()
    assert issued.full_key.startswith(f"wh:{issued.key_id}:")
    parsed = credentials.parse_webhook_key(issued.full_key)
    assert parsed is not None and parsed[0] == issued.key_id


@pytest.mark.parametrize(
    "value",
    ["", "pwrusr:", "pwrusr:abc:def", "pwrusr:" + "0" * 32, "wh:" + "0" * 32 + ":short", "Bearer pwrusr:x:y"],
)
def test_malformed_keys_do_not_parse(value: str) -> None:
    assert credentials.parse_poweruser_key(value) is None
    assert credentials.parse_webhook_key(value) is None


def test_keys_are_unique() -> None:
    keys = {credentials.issue_client_key().full_key for _ in range(200)}
    assert len(keys) == 200


def test_ids_are_uuidv7_in_hex_and_sort_by_the_time_they_were_made(monkeypatch: pytest.MonkeyPatch) -> None:
    made = [credentials.new_id() for _ in range(1000)]
    assert len(set(made)) == 1000
    for value in made[:10]:
        assert re.fullmatch(r"[0-9a-f]{32}", value)
        parsed = uuid.UUID(value)
        assert parsed.version == 7 and parsed.variant == uuid.RFC_4122
    moments = iter([1_700_000_000_000_000_000, 1_700_000_000_001_000_000, 1_700_000_000_002_000_000])
    monkeypatch.setattr("schemas.ids.time.time_ns", lambda: next(moments))
    ordered = [credentials.new_id() for _ in range(3)]
    assert ordered == sorted(ordered)
    assert int(ordered[0][:12], 16) == 1_700_000_000_000
