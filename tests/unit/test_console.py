"""The console's pure parts: session tokens and CSRF, the cookie, same-origin checks, forms and view models,
and the rendering's escaping and headers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from ingress.console import pages, sessions, views
from schemas.console import (
    AlertFilter,
    PauseForm,
    ReplayForm,
    RunsFilter,
    ScheduleForm,
    WebhookEditForm,
    WebhookForm,
    parse_filter,
    parse_mappings,
    zoned_instant,
)

pytestmark = pytest.mark.unit
SECRET = "a-test-secret-key-of-some-length"


def test_tokens_are_random_and_stored_only_as_digests() -> None:
    first, second = sessions.new_token(), sessions.new_token()
    assert first != second and len(first) >= 43
    assert sessions.token_digest(first) == sessions.token_digest(first)
    assert first not in sessions.token_digest(first) and len(sessions.token_digest(first)) == 64


def test_csrf_token_is_per_session_and_per_key() -> None:
    token = sessions.new_token()
    csrf = sessions.csrf_token(SECRET, token)
    assert sessions.csrf_ok(SECRET, token, csrf)
    assert not sessions.csrf_ok(SECRET, sessions.new_token(), csrf)
    assert not sessions.csrf_ok("another-secret-key-0000", token, csrf)
    assert not sessions.csrf_ok(SECRET, token, None)
    assert not sessions.csrf_ok(SECRET, token, "")


def test_cookie_is_http_only_strict_and_secure_under_https() -> None:
    plain = sessions.cookie_header("tok", max_age=60, secure=False)
    assert "HttpOnly" in plain and "SameSite=Strict" in plain and "Max-Age=60" in plain
    assert "Secure" not in plain and "Path=/console" in plain
    assert sessions.cookie_header("tok", max_age=60, secure=True).endswith("; Secure")
    assert "Max-Age=0" in sessions.cleared_cookie_header(secure=False)


@pytest.mark.parametrize(
    ("origin", "referer", "expected"),
    [
        ("http://127.0.0.1:8080", None, True),
        ("http://evil.test", None, False),
        ("https://127.0.0.1:8080", None, False),
        ("null", None, False),
        (None, "http://127.0.0.1:8080/console/webhooks", True),
        (None, "http://evil.test/x", False),
        (None, None, True),
    ],
)
def test_same_origin(origin: str | None, referer: str | None, expected: bool) -> None:
    assert sessions.same_origin(origin, referer, "127.0.0.1:8080", "http") is expected


def test_mappings_parse_and_show_again() -> None:
    assert parse_mappings("orderId = $.order.id\n\n amount=$.total ") == {
        "orderId": "$.order.id",
        "amount": "$.total",
    }
    assert views.mappings_text({"a": "$.b"}) == "a = $.b"
    with pytest.raises(ValueError, match="line 2"):
        parse_mappings("a = $.b\nnot a mapping")


def test_webhook_form_builds_the_config_the_api_takes() -> None:
    form = WebhookForm.model_validate(
        {
            "name": " orders ",
            "resource_type": "TOOL",
            "resource_id": "t1",
            "mappings": "o = $.id",
            "csrf": "x",
        }
    )
    assert form.webhook_config() == {
        "name": "orders",
        "payloadTransformConfig": {"transformType": "JSONPATH", "jsonPathMappings": {"o": "$.id"}},
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": "t1"},
    }
    with pytest.raises(ValidationError):
        WebhookForm.model_validate({"name": ""})


def test_replay_form_is_a_dry_run_until_confirmed() -> None:
    one = ReplayForm.model_validate({"execution_id": "e1", "status": ""})
    assert one.request_body("w") == {"webhookId": "w", "executionIds": ["e1"]}
    counted = ReplayForm.model_validate({"status": "FAILED", "from": "2026-12-01T00:00:00Z", "to": ""})
    assert counted.request_body("w") == {
        "webhookId": "w",
        "filter": {"status": "FAILED", "from": "2026-12-01T00:00:00Z"},
        "dryRun": True,
    }
    confirmed = ReplayForm.model_validate({"status": "FAILED", "confirm": "true"})
    assert confirmed.request_body("w")["dryRun"] is False


def test_schedule_form_specs() -> None:
    cron = ScheduleForm.model_validate({"pattern": "CRON", "expression": "0 9 * * ? *", "timezone": "UTC"})
    assert cron.schedule_spec() == {
        "pattern": "CRON",
        "cron": {"expression": "0 9 * * ? *", "timezone": "UTC"},
    }
    every = ScheduleForm.model_validate({"pattern": "EVERY", "every_value": "5", "every_unit": "MINUTES"})
    assert every.schedule_spec() == {"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES"}}
    once = ScheduleForm.model_validate({"pattern": "ONCE", "at": "2027-01-01T09:00:00", "timezone": "UTC"})
    assert once.schedule_spec()["once"] == {"at": "2027-01-01T09:00:00", "timezone": "UTC"}


def test_fire_times_mark_offset_changes() -> None:
    shown = views.fire_times(
        ["2027-03-01T09:00:00+01:00", "2027-04-01T09:00:00+02:00", "2027-05-01T09:00:00+02:00"]
    )
    assert [(t.local, t.offset, t.offset_changed) for t in shown] == [
        ("2027-03-01 09:00:00", "+01:00", False),
        ("2027-04-01 09:00:00", "+02:00", True),
        ("2027-05-01 09:00:00", "+02:00", False),
    ]


def test_view_helpers() -> None:
    assert views.pretty_json('{"b":1,"a":[1]}') == '{\n  "a": [\n    1\n  ],\n  "b": 1\n}'
    assert views.pretty_json("not json") == "not json"
    assert views.header_rows('{"x-b": "2", "authorization": "[redacted]"}') == [
        ("authorization", "[redacted]"),
        ("x-b", "2"),
    ]
    assert views.page_numbers(0, 0) == []
    assert views.page_numbers(10, 40) == [0, 7, 8, 9, 10, 11, 12, 13, 39]
    assert views.tone("FAILED") == "bad" and views.tone("SUCCESS") == "ok" and views.tone("QUEUED") == "wait"
    assert views.cell(None) == "" and views.cell(["a"]) == '["a"]' and views.cell(True) == "true"


def test_pages_escape_every_value_and_carry_the_security_headers() -> None:
    hostile = '<script>alert(1)</script>"><img src=x onerror=alert(1)>'
    page = pages.render("error.html", csrf="", me=None, nav="", errors=[hostile])
    html = bytes(page.body).decode()
    assert hostile not in html and "&lt;script&gt;" in html and "&#34;&gt;&lt;img" in html
    policy = page.headers["content-security-policy"]
    assert (
        "frame-ancestors 'none'" in policy and "script-src 'self'" in policy and "unsafe-inline" not in policy
    )
    assert page.headers["x-frame-options"] == "DENY"


def test_a_pause_is_a_wall_clock_time_in_the_zone_the_form_names() -> None:
    winter = zoned_instant("2030-01-15T08:00", "Europe/Paris")
    assert winter.astimezone(UTC) == datetime(2030, 1, 15, 7, 0, tzinfo=UTC)
    summer = zoned_instant("2030-07-15T08:00", "Europe/Paris")
    assert summer.astimezone(UTC) == datetime(2030, 7, 15, 6, 0, tzinfo=UTC)
    assert zoned_instant("2030-01-15T08:00+05:00", "Europe/Paris").utcoffset() is not None
    assert zoned_instant("2030-01-15T08:00", "").astimezone(UTC).hour == 8
    with pytest.raises(ValueError, match="unknown time zone"):
        zoned_instant("2030-01-15T08:00", "Mars/Olympus")
    with pytest.raises(ValueError, match="2027-03-28T09:00"):
        zoned_instant("next tuesday", "UTC")
    assert PauseForm(until="", timezone="UTC").request_body("e1") == {"scheduledEventId": "e1"}
    assert PauseForm(until="2030-01-15T08:00", timezone="Europe/Paris").request_body("e1") == {
        "scheduledEventId": "e1",
        "until": "2030-01-15T08:00:00+01:00",
    }


def test_alert_and_run_filters_take_blank_as_any() -> None:
    assert AlertFilter.model_validate({"state": "", "cursor": ""}) == AlertFilter()
    assert AlertFilter.model_validate({"state": "OPEN"}).state == "OPEN"
    assert "ACKNOWLEDGED" in AlertFilter.STATES
    with pytest.raises(ValidationError):
        AlertFilter.model_validate({"state": "SNOOZED"})
    assert RunsFilter.model_validate({"status": "", "page": "2"}) == RunsFilter(page=2)
    with pytest.raises(ValidationError):
        RunsFilter.model_validate({"page": "-1"})
    assert views.tone("CLOSED") == "ok" and views.tone("OPEN") == "bad" and views.tone("HALF_OPEN") == "wait"


def test_webhook_edit_puts_the_form_into_the_configuration_get_answered() -> None:
    current = {
        "name": "orders",
        "payloadTransformConfig": {"transformType": "JSONPATH", "jsonPathMappings": {"a": "$.a"}},
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": "t1", "variables": {"o": "@@{a}"}},
        "executionSettings": {"timeoutSeconds": 5},
        "verificationConfig": {"provider": "GITHUB", "secretHint": "ab…", "headerName": None},
    }
    shown = WebhookEditForm.shown(current)
    assert shown["mappings"] == "a = $.a" and shown["provider"] == "GITHUB" and shown["secret"] == ""
    kept = WebhookEditForm.model_validate(shown).edited(current)
    assert kept["verificationConfig"] == {"provider": "GITHUB"}  # no secret: the API keeps the stored one
    assert kept["resourceExecutionConfig"]["variables"] == {"o": "@@{a}"}
    assert kept["executionSettings"] == {"timeoutSeconds": 5} and "filterConfig" not in kept
    changed = WebhookEditForm.model_validate(
        {
            **shown,
            "name": "paid orders",
            "resource_id": "t2",
            "mappings": "b = $.b",
            "content_filter": '{"body": {"type": "paid"}}',
            "provider": "HMAC_SHA256",
            "secret": "s3cret",
            "header_name": "X-Sig",
        }
    ).edited(current)
    assert changed["name"] == "paid orders"
    assert changed["resourceExecutionConfig"] == {"resourceType": "TOOL", "resourceId": "t2"}
    assert changed["payloadTransformConfig"]["jsonPathMappings"] == {"b": "$.b"}
    assert changed["filterConfig"] == {"body": {"type": "paid"}}
    assert changed["verificationConfig"] == {
        "provider": "HMAC_SHA256",
        "secret": "s3cret",
        "headerName": "X-Sig",
    }
    off = WebhookEditForm.model_validate({**shown, "provider": "", "resource_id": ""}).edited(current)
    assert "verificationConfig" not in off and "resourceExecutionConfig" not in off
    with pytest.raises(ValueError, match="content filter: not JSON"):
        WebhookEditForm.model_validate({**shown, "content_filter": "{nope"}).edited(current)
    with pytest.raises(ValueError, match="JSON object"):
        parse_filter("[1]")
    assert parse_filter("  ") is None
