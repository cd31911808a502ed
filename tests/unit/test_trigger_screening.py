"""Pure parts of the trigger's screens (ingress/webhooks/trigger_screening.py) and the paths in 400
messages."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.requests import Request

from ingress.errors import messages_of
from ingress.webhooks.trigger_screening import parsed_json, public_url
from schemas.settings import Settings
from schemas.webhooks import WebhookConfig

pytestmark = pytest.mark.unit


def _request(query: bytes, host: str = "hooks.internal:8080", scheme: str = "http") -> Request:
    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "scheme": scheme,
        "server": ("10.0.0.5", 8080),
        "path": "/clients/custom-webhooks",
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", host.encode())],
    }
    return Request(scope)


def test_the_public_url_is_the_request_own_without_a_setting() -> None:
    request = _request(b"resourceId=abc&authorization=wh%3Ak%3As")
    assert public_url(request, None) == (
        "http://hooks.internal:8080/clients/custom-webhooks?resourceId=abc&authorization=wh%3Ak%3As"
    )


@pytest.mark.parametrize("base", ["https://hooks.example.com/svc", "https://hooks.example.com/svc/"])
def test_the_public_url_setting_replaces_scheme_host_and_prefix(base: str) -> None:
    request = _request(b"resourceId=abc&x=%2B1")
    assert (
        public_url(request, base)
        == "https://hooks.example.com/svc/clients/custom-webhooks?resourceId=abc&x=%2B1"
    )
    assert public_url(_request(b""), base) == "https://hooks.example.com/svc/clients/custom-webhooks"


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        (b"", None),
        (b"null", None),
        (b'{"a": [1, 2]}', {"a": [1, 2]}),
        (b"[1]", [1]),
        (b"a=1&b=2", None),
        (b"\xff\xfe{", None),
        (b"[" * 100_000 + b"]" * 100_000, None),
    ],
)
def test_the_filter_sees_a_json_body_or_none(raw: bytes, parsed: Any) -> None:
    assert parsed_json(raw) == parsed


def test_a_nested_field_named_body_or_query_keeps_its_place_in_the_path() -> None:
    with pytest.raises(ValidationError) as caught:
        WebhookConfig.model_validate({"name": "x", "filterConfig": {"body": {"order": {"$gte": {}}}}})
    assert messages_of(caught.value, prefix="webhookConfig") == [
        "webhookConfig.filterConfig.body.order.$gte: expects a number or string, got object"
    ]


def test_only_the_leading_request_part_is_dropped() -> None:
    error = RequestValidationError(
        [
            {"loc": ("body", "webhookConfig", "query", "x"), "msg": "bad", "type": "value_error"},
            {"loc": ("query", "resourceId"), "msg": "Field required", "type": "missing"},
            {"loc": ("body",), "msg": "Field required", "type": "missing"},
        ]
    )
    assert messages_of(error) == [
        "webhookConfig.query.x: bad",
        "resourceId: Field required",
        "body: Field required",
    ]


@pytest.mark.parametrize(
    "value", ["https://hooks.example.com", "http://127.0.0.1:8080", "https://x.example/svc/"]
)
def test_public_base_url_takes_a_scheme_host_and_path_prefix(value: str) -> None:
    assert Settings(public_base_url=value).public_base_url == value


@pytest.mark.parametrize(
    "value",
    ["hooks.example.com", "ftp://x.example", "https://x.example/?a=1", "https://u:p@x.example", "https://"],
)
def test_public_base_url_refuses_what_is_not_a_base(value: str) -> None:
    with pytest.raises(ValidationError):
        Settings(public_base_url=value)
