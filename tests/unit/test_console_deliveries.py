"""The deliveries view's pure parts: its filters kept in the URL, the API request they make, the attempts."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from ingress.console import pages
from ingress.console.attempts import attempt_rows, response_excerpt
from schemas.console import DeliveryFilter


def test_the_filters_blank_as_any_and_make_the_history_request() -> None:
    blank = DeliveryFilter.model_validate({"status": "", "from": "", "to": "", "body": ""})
    assert not blank.narrowed
    assert blank.history_body("w1", 25) == {"webhookId": "w1", "page": 0, "size": 25}
    chosen = DeliveryFilter.model_validate(
        {
            "status": "FAILED",
            "from": "2026-12-01T00:00:00Z",
            "to": "2026-12-02T00:00:00+01:00",
            "body": "ord-1",
        }
    )
    assert chosen.narrowed
    assert chosen.history_body("w1", 25) == {
        "webhookId": "w1",
        "page": 0,
        "size": 25,
        "status": "FAILED",
        "from": "2026-12-01T00:00:00Z",
        "to": "2026-12-02T00:00:00+01:00",
        "bodyContains": "ord-1",
    }


def test_paging_keeps_every_filter_in_the_url() -> None:
    chosen = DeliveryFilter.model_validate(
        {"from": "2026-12-01T00:00:00+01:00", "body": "a&b=c", "page": "1"}
    )
    again = DeliveryFilter.model_validate(
        {name: values[0] for name, values in parse_qs(chosen.query(4)).items()}
    )
    assert (again.from_, again.to, again.body, again.status, again.page) == (
        "2026-12-01T00:00:00+01:00",
        None,
        "a&b=c",
        None,
        4,
    )
    assert DeliveryFilter().query(2) == "page=2"


def test_a_handler_response_is_shown_as_a_one_line_excerpt() -> None:
    http = json.dumps({"status": 502, "body": "upstream\n  down"})
    assert response_excerpt(http) == "HTTP 502: upstream down"
    assert response_excerpt(json.dumps({"topic": "t", "partition": 0, "offset": 7})) == (
        '{"offset": 7, "partition": 0, "topic": "t"}'
    )
    assert response_excerpt(None) == ""
    long = response_excerpt(json.dumps({"status": 200, "body": "x" * 1000}), limit=20)
    assert len(long) == 20 and long.endswith("…")


def test_attempts_are_listed_first_attempt_first() -> None:
    history = [
        {
            "attemptNumber": 2,
            "status": "SUCCESS",
            "queuedAt": "2026-12-01T00:00:05.000",
            "durationMs": 12,
            "executionDetails": {
                "resourceResponseJson": '{"status": 200, "body": "ok"}',
                "traceId": "ab" * 16,
            },
        },
        {
            "attemptNumber": 1,
            "status": "FAILED",
            "queuedAt": "2026-12-01T00:00:00.000",
            "durationMs": 30,
            "executionDetails": {"errorMessage": "HTTP 503 from the handler", "traceId": "ab" * 16},
        },
    ]
    rows = attempt_rows(history)
    assert [(row.number, row.status, row.error, row.response) for row in rows] == [
        (1, "FAILED", "HTTP 503 from the handler", ""),
        (2, "SUCCESS", "", "HTTP 200: ok"),
    ]
    assert rows[0].trace_id == "ab" * 16


def test_the_view_renders_a_webhook_without_a_handler_and_keeps_the_filters_in_its_page_links() -> None:
    chosen = DeliveryFilter.model_validate({"from": "2026-12-01T00:00:00Z", "body": '"><b>', "page": "0"})
    webhook = {
        "id": "w1",
        "isEnabled": True,
        "webhookConfig": {"name": "orders"},
        "sharingLevel": "PRIVATE",
        "userAccessLevel": "ADMIN",
        "apiKeyId": "k1",
    }
    page = pages.render(
        "webhook.html",
        csrf="t",
        me=None,
        nav="webhooks",
        errors=[],
        webhook=webhook,
        mappings="",
        history=[],
        total_pages=3,
        total=60,
        chosen=chosen,
        history_errors=[],
        search_limited=True,
        search_limit=5_000,
        page_query=chosen.query,
        statuses=DeliveryFilter.STATUSES,
    )
    html = bytes(page.body).decode()
    assert "Only the newest 5,000 deliveries of this range were searched" in html
    assert 'href="?from=2026-12-01T00%3A00%3A00Z&amp;body=%22%3E%3Cb%3E&amp;page=1"' in html
    assert 'value="&#34;&gt;&lt;b&gt;"' in html and '"><b>' not in html
