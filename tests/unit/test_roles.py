"""The ingress's tuning of uvicorn: the setting it changes must exist, or an upgrade silently undoes it."""

import inspect

import pytest
import uvicorn.protocols.http.httptools_impl as httptools_impl

from svc import roles

pytestmark = pytest.mark.unit


def test_request_bodies_are_buffered_up_to_the_larger_high_water_mark(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The protocol reads the module constant each time a piece of body arrives.
    assert "HIGH_WATER_LIMIT" in inspect.getsource(httptools_impl.HttpToolsProtocol.on_body)
    monkeypatch.setattr(httptools_impl, "HIGH_WATER_LIMIT", getattr(httptools_impl, "HIGH_WATER_LIMIT"))  # noqa: B009
    roles.read_request_bodies_in_larger_pieces()
    assert getattr(httptools_impl, "HIGH_WATER_LIMIT") == roles.BODY_HIGH_WATER_BYTES == 1024 * 1024  # noqa: B009
