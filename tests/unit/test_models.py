import logging

import pytest
from pydantic import ValidationError

from schemas.admin import ResourceSpec
from schemas.enums import AccessLevel
from schemas.envelopes import Envelope
from svc.logs import JsonFormatter

pytestmark = pytest.mark.unit


def test_access_levels_are_ordered() -> None:
    assert AccessLevel.ADMIN.allows(AccessLevel.READ)
    assert AccessLevel.WRITE.allows(AccessLevel.WRITE)
    assert not AccessLevel.WRITE.allows(AccessLevel.PUBLISH)
    assert not AccessLevel.READ.allows(AccessLevel.WRITE)
    assert AccessLevel.highest(None, AccessLevel.READ, AccessLevel.PUBLISH) is AccessLevel.PUBLISH
    assert AccessLevel.highest(None) is None


def test_envelope_round_trip_is_versioned() -> None:
    envelope = Envelope(type="webhook.delivery", payload={"executionId": "e1"})
    raw = envelope.to_bytes()
    assert b'"createdAt"' in raw and b'"v":1' in raw
    again = Envelope.from_bytes(raw)
    assert again == envelope
    with pytest.raises(ValidationError):
        Envelope.model_validate({"type": "x", "unexpected": 1})
    with pytest.raises(ValidationError):
        Envelope.model_validate({"type": ""})


@pytest.mark.parametrize(
    "endpoint", ["http://127.0.0.1:9000/run", "https://tools.example.com/hook", "kafka://agent.requests"]
)
def test_resource_endpoints_accepted(endpoint: str) -> None:
    assert ResourceSpec(type="TOOL", name="t", endpoint=endpoint).endpoint == endpoint


@pytest.mark.parametrize(
    "endpoint", ["ftp://x", "http://", "kafka://", "kafka://bad topic", "file:///etc/passwd"]
)
def test_resource_endpoints_refused(endpoint: str) -> None:
    with pytest.raises(ValidationError, match="endpoint must be"):
        ResourceSpec(type="TOOL", name="t", endpoint=endpoint)


def test_logs_are_json_and_redact_secret_fields() -> None:
    record = logging.LogRecord("svc", logging.INFO, __file__, 1, "hello %s", ("world",), None)
    record.authorization = "pwrusr:abc:secret"
    record.api_key = "svck_secret"
    record.request_id = "r1"
    line = JsonFormatter().format(record)
    assert '"msg": "hello world"' in line
    assert "secret" not in line.replace("[redacted]", "")
    assert '"request_id": "r1"' in line
