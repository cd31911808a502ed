"""Provider signatures on the trigger (webhookConfig.verificationConfig): deliveries signed as each provider
documents are queued and handled; forged, stale and unsigned ones are 401 ``Invalid signature.`` with nothing
recorded; the secret is stored sealed and never answered."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus, urlencode

import httpx
import pytest
from sqlalchemy import select

from ingress.webhooks import trigger_screening
from sinks.db.models import Webhook
from tests.fixtures import signatures as signed
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import (
    TRIGGER,
    history,
    register_handler,
    tool_webhook,
    wait_for,
)

pytestmark = pytest.mark.integration

INVALID = {"error": "Invalid signature."}
BODY = b'{"id":"evt_1Nq","type":"order.paid","order":{"id":"A-17"},"note":"caf\xc3\xa9"}'
TWILIO_FORM = b"AccountSid=AC0123&CallSid=CA9876&From=%2B14155550100&To=%2B14155550199&CallStatus=ringing"
FORM = "application/x-www-form-urlencoded"


def now() -> int:
    return int(time.time())


def verified_webhook(world: World, tool_id: str, verification: dict[str, Any]) -> tuple[str, str]:
    return tool_webhook(world, tool_id, verificationConfig=verification)


def webhook(world: World, **config: Any) -> tuple[str, str]:
    """A webhook without a handler (its deliveries are queued and stay QUEUED without a worker)."""
    created = world.api.create(world.owner, {"name": "orders", **config})
    return created["webhook"]["id"], str(created["apiKey"])


def deliver(
    ingress: Ingress,
    webhook_id: str,
    key: str,
    headers: dict[str, str],
    body: bytes = BODY,
    content_type: str = "application/json",
) -> httpx.Response:
    return ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "Content-Type": content_type, **headers},
        content=body,
    )


def twilio_url(ingress: Ingress, webhook_id: str, key: str) -> str:
    """The URL configured at Twilio: the key travels in the query (Twilio sets no Authorization header)."""
    return f"{ingress.base_url}{TRIGGER}?{urlencode({'resourceId': webhook_id, 'authorization': key})}"


def twilio_headers(url: str, form: bytes, token: str = signed.TWILIO_TOKEN) -> dict[str, str]:
    fields = sorted(pair.split("=", 1) for pair in form.decode().split("&"))
    signed_text = url + "".join(unquote_plus(name) + unquote_plus(value) for name, value in fields)
    return {"X-Twilio-Signature": signed.twilio_signature(token, signed_text), "Content-Type": FORM}


@dataclass
class Provider:
    """One provider's case: its verificationConfig, a genuine delivery and the refusals it must meet."""

    name: str
    verification: dict[str, Any]
    genuine: Callable[[bytes], dict[str, str]]
    refused: dict[str, Callable[[bytes], dict[str, str]]]


PROVIDERS = [
    Provider(
        "GITHUB",
        {"provider": "GITHUB", "secret": signed.GITHUB_SECRET},
        lambda body: signed.github_headers(body),
        {
            "forged": lambda body: signed.github_headers(body, secret="another-secret-0123456789"),
            "unsigned": lambda body: {"X-GitHub-Delivery": "72d3162e"},
            "tampered": lambda body: signed.github_headers(body.replace(b"A-17", b"A-18")),
        },
    ),
    Provider(
        "STRIPE",
        {"provider": "STRIPE", "secret": signed.STRIPE_SECRET},
        lambda body: signed.stripe_headers(body, at=now()),
        {
            "forged": lambda body: signed.stripe_headers(body, at=now(), secret="whsec_forged"),
            "stale": lambda body: signed.stripe_headers(body, at=now() - 301),
            "unsigned": lambda body: {},
        },
    ),
    Provider(
        "STANDARD_WEBHOOKS",
        {"provider": "STANDARD_WEBHOOKS", "secret": signed.STANDARD_SECRET},
        lambda body: signed.standard_headers(body, at=now()),
        {
            "forged": lambda body: signed.standard_headers(body, at=now(), key=bytes(32)),
            "stale": lambda body: signed.standard_headers(body, at=now() - 600),
            "unsigned": lambda body: {"webhook-id": "msg_1", "webhook-timestamp": str(now())},
        },
    ),
    Provider(
        "SLACK",
        {"provider": "SLACK", "secret": signed.SLACK_SECRET},
        lambda body: signed.slack_headers(body, at=now()),
        {
            "forged": lambda body: signed.slack_headers(body, at=now(), secret="0" * 32),
            "stale": lambda body: signed.slack_headers(body, at=now() - 301),
            "unsigned": lambda body: {"X-Slack-Request-Timestamp": str(now())},
        },
    ),
]


def test_signed_deliveries_are_handled_and_refused_ones_leave_nothing(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = register_handler(world, handler)
    executions: dict[str, str] = {}
    webhooks: dict[str, str] = {}
    for provider in PROVIDERS:
        webhook_id, key = verified_webhook(world, tool_id, provider.verification)
        webhooks[provider.name] = webhook_id
        # Refusals first: anything they queued would reach the handler before the genuine delivery does.
        for what, headers in provider.refused.items():
            answer = deliver(ingress, webhook_id, key, headers(BODY))
            assert (answer.status_code, answer.json()) == (401, INVALID), f"{provider.name} {what}"
        answer = deliver(ingress, webhook_id, key, provider.genuine(BODY))
        assert answer.status_code == 202, f"{provider.name}: {answer.text}"
        executions[provider.name] = answer.json()["executionId"]

    # Twilio signs the URL it calls and the form it posts; the key rides in that URL's query.
    webhook_id, key = verified_webhook(world, tool_id, {"provider": "TWILIO", "secret": signed.TWILIO_TOKEN})
    webhooks["TWILIO"] = webhook_id
    url = twilio_url(ingress, webhook_id, key)
    refusals = {
        "forged": twilio_headers(url, TWILIO_FORM, token="f" * 32),
        "tampered": twilio_headers(url, TWILIO_FORM.replace(b"ringing", b"completed")),
        "unsigned": {"Content-Type": FORM},
    }
    for what, refused_headers in refusals.items():
        answer = ingress.client.post(url, headers=refused_headers, content=TWILIO_FORM)
        assert (answer.status_code, answer.json()) == (401, INVALID), f"TWILIO {what}"
    answer = ingress.client.post(url, headers=twilio_headers(url, TWILIO_FORM), content=TWILIO_FORM)
    assert answer.status_code == 202, answer.text
    executions["TWILIO"] = answer.json()["executionId"]

    for name, webhook_id in webhooks.items():
        entries = wait_for(world, webhook_id, lambda es: bool(es) and es[0]["status"] == "SUCCESS")
        assert [e["executionId"] for e in entries] == [executions[name]], name
    handled = sorted(call["body"]["executionId"] for call in handler.calls)
    assert handled == sorted(executions.values())


def test_a_large_body_is_verified_off_the_event_loop_alike(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(
        world, verificationConfig={"provider": "GITHUB", "secret": signed.GITHUB_SECRET}
    )
    body = json.dumps({"items": ["x" * 100] * 2000}).encode()  # ~200 KB: verified in a worker thread
    assert deliver(ingress, webhook_id, key, signed.github_headers(body), body).status_code == 202
    forged = signed.github_headers(body, secret="another-secret-0123456789")
    assert deliver(ingress, webhook_id, key, forged, body).json() == INVALID


def test_order_key_then_signature_then_validation_script(world: World, ingress: Ingress) -> None:
    refusing = "return {valid: false, message: 'script says no'};"
    webhook_id, key = webhook(
        world,
        verificationConfig={"provider": "GITHUB", "secret": signed.GITHUB_SECRET},
        validationConfig={"enableValidation": True, "validationScript": refusing},
    )
    genuine = signed.github_headers(BODY)
    forged = signed.github_headers(BODY, secret="another-secret-0123456789")
    wrong_key = key[:-4] + ("0000" if not key.endswith("0000") else "1111")
    assert deliver(ingress, webhook_id, wrong_key, genuine).json() == {"error": "Invalid API key."}
    assert deliver(ingress, webhook_id, key, forged).json() == INVALID
    assert deliver(ingress, webhook_id, key, genuine).json() == {"error": "script says no"}
    assert history(world, webhook_id)["totalElements"] == 0


def test_refused_signatures_do_not_lock_the_key_out(world: World, ingress: Ingress) -> None:
    """Decision: a refused signature is not a refused key, so it does not count towards the lockout of the
    key id or the address (a provider's shared addresses would otherwise be locked out for every company by
    one company's wrong secret, and anyone holding a leaked URL could stop the genuine deliveries)."""
    webhook_id, key = webhook(
        world, verificationConfig={"provider": "GITHUB", "secret": signed.GITHUB_SECRET}
    )
    forged = signed.github_headers(BODY, secret="another-secret-0123456789")
    limit = int(ingress.settings.auth_failures_per_minute)
    for _ in range(limit + 5):
        assert deliver(ingress, webhook_id, key, forged).status_code == 401
    assert deliver(ingress, webhook_id, key, signed.github_headers(BODY)).status_code == 202


def _config_texts(world: World, webhook_id: str) -> list[str]:
    """Every answer that shows the webhook, as text."""
    got = world.api.call(world.owner, "get", {"webhookId": webhook_id})
    listed = world.api.call(world.owner, "get-all", {})
    return [got.text, listed.text]


def test_the_secret_is_sealed_at_rest_and_never_answered(world: World, ingress: Ingress) -> None:
    secret = signed.STRIPE_SECRET + "_0123456789abcdefWXYZ"
    config = {"name": "stripe", "verificationConfig": {"provider": "STRIPE", "secret": secret}}
    created = world.api.call(world.owner, "create", {"webhookConfig": config})
    assert created.status_code == 200, created.text
    webhook_id = created.json()["webhook"]["id"]
    for text in [created.text, *_config_texts(world, webhook_id)]:
        assert secret not in text
        assert "sealedSecret" not in text
    shown = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    assert shown["verificationConfig"] == {
        "provider": "STRIPE",
        "secretHint": "whsec_…WXYZ",
        "toleranceSeconds": 300,
    }

    with world.db.sessions() as session:
        stored = session.scalar(select(Webhook.config_json).where(Webhook.id == webhook_id))
    assert stored is not None
    assert secret not in stored
    assert secret.removeprefix("whsec_") not in stored
    assert json.loads(stored)["verificationConfig"]["sealedSecret"].startswith("v1:")

    at = now()
    answer = deliver(
        ingress, webhook_id, created.json()["apiKey"], signed.stripe_headers(BODY, at=at, secret=secret)
    )
    assert answer.status_code == 202, answer.text
    entry = history(world, webhook_id)["history"][0]
    assert secret not in json.dumps(entry)


def test_a_header_carrying_the_secret_itself_is_never_stored(world: World, ingress: Ingress) -> None:
    """GitLab sends its secret token in clear in X-Gitlab-Token: the history shows the header redacted."""
    config = {"name": "gl", "verificationConfig": {"provider": "GITLAB", "secret": signed.GITLAB_TOKEN}}
    created = world.api.create(world.owner, config)
    webhook_id, key = created["webhook"]["id"], created["apiKey"]
    answer = deliver(ingress, webhook_id, key, {"X-Gitlab-Token": signed.GITLAB_TOKEN})
    assert answer.status_code == 202, answer.text
    entry = history(world, webhook_id)["history"][0]
    assert signed.GITLAB_TOKEN not in json.dumps(entry)
    shown = json.loads(entry["executionDetails"]["requestHeaders"])
    assert {k.lower(): v for k, v in shown.items()}["x-gitlab-token"] == "[REDACTED]"


def test_update_keeps_the_secret_unless_the_provider_changes(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(
        world, verificationConfig={"provider": "GITHUB", "secret": signed.GITHUB_SECRET}
    )
    genuine = signed.github_headers(BODY)

    def fresh() -> dict[str, str]:  # a new X-GitHub-Delivery each time: a repeated one is a duplicate
        return {**genuine, "X-GitHub-Delivery": uuid.uuid4().hex}

    def update(config: dict[str, Any]) -> httpx.Response:
        return world.api.call(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config})

    # What /get answers can be sent back as it is: secretHint is ignored and the stored secret kept.
    shown = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    assert update({**shown, "description": "renamed"}).status_code == 200
    assert deliver(ingress, webhook_id, key, fresh()).status_code == 202
    assert update({"name": "orders", "verificationConfig": {"provider": "GITHUB"}}).status_code == 200
    assert deliver(ingress, webhook_id, key, fresh()).status_code == 202

    changed = update({"name": "orders", "verificationConfig": {"provider": "SHOPIFY"}})
    assert changed.status_code == 400
    assert changed.json()["errors"] == [
        "webhookConfig.verificationConfig.secret: required when the provider changes "
        "(the stored secret is GITHUB's)"
    ]
    assert deliver(ingress, webhook_id, key, fresh()).status_code == 202  # nothing changed

    rotated = "rotated-github-secret-0123456789"
    assert (
        update(
            {"name": "orders", "verificationConfig": {"provider": "GITHUB", "secret": rotated}}
        ).status_code
        == 200
    )
    assert deliver(ingress, webhook_id, key, genuine).json() == INVALID
    assert deliver(ingress, webhook_id, key, signed.github_headers(BODY, secret=rotated)).status_code == 202

    # /update replaces the whole configuration: without verificationConfig the check is off.
    assert update({"name": "orders"}).status_code == 200
    assert deliver(ingress, webhook_id, key, {}).status_code == 202


def test_a_bad_verification_config_is_refused_with_its_path(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    path = "webhookConfig.verificationConfig"
    cases = [
        (
            {"provider": "GITHUB", "secret": "short-secret"},
            f"{path}.secret: a GITHUB secret must be at least 16",
        ),
        ({"provider": "STRIPE", "secret": "sk_live_0123456789"}, f"{path}.secret: a STRIPE signing secret"),
        ({"provider": "GITHUB"}, f"{path}.secret: Field required"),
        ({"provider": "NOPE", "secret": "x" * 20}, f"{path}.provider: Input should be"),
        (
            {"provider": "SLACK", "secret": "x" * 32, "headerName": "X-Sig"},
            f"{path}.headerName: only used with",
        ),
    ]
    for verification, message in cases:
        answer = world.api.call(
            world.owner,
            "update",
            {"webhookId": webhook_id, "webhookConfig": {"name": "x", "verificationConfig": verification}},
        )
        assert answer.status_code == 400, answer.text
        assert answer.json()["errors"][0].startswith(message), answer.text
        secret = verification.get("secret")
        assert secret is None or secret not in answer.text


def test_twilio_signs_the_public_url_when_one_is_set(world: World, ingress: Ingress) -> None:
    """Behind a proxy the URL Twilio calls is not the one the ingress sees: SVC_PUBLIC_BASE_URL names it."""
    public = "https://hooks.example.com/svc"
    behind_proxy = Ingress(ingress.settings.model_copy(update={"public_base_url": public}))
    behind_proxy.start()
    try:
        webhook_id, key = webhook(
            world, verificationConfig={"provider": "TWILIO", "secret": signed.TWILIO_TOKEN}
        )
        query = urlencode({"resourceId": webhook_id, "authorization": key})
        seen_by_twilio = f"{public}{TRIGGER}?{query}"
        local = f"{behind_proxy.base_url}{TRIGGER}?{query}"
        answer = behind_proxy.client.post(
            local, headers=twilio_headers(seen_by_twilio, TWILIO_FORM), content=TWILIO_FORM
        )
        assert answer.status_code == 202, answer.text
        signed_for_local = twilio_headers(local, TWILIO_FORM)
        answer = behind_proxy.client.post(local, headers=signed_for_local, content=TWILIO_FORM)
        assert answer.json() == INVALID
        # The default (no public URL): the request's own scheme and Host header.
        assert ingress.client.post(local, headers=signed_for_local, content=TWILIO_FORM).status_code == 202
    finally:
        behind_proxy.stop()


def test_a_signature_header_sent_twice_with_different_values_is_refused(
    world: World, ingress: Ingress
) -> None:
    """Which copy a proxy in front looked at cannot be known, so neither is taken."""
    webhook_id, key = webhook(
        world, verificationConfig={"provider": "GITHUB", "secret": signed.GITHUB_SECRET}
    )
    genuine = signed.github_headers(BODY)["X-Hub-Signature-256"]
    forged = signed.github_headers(BODY, secret="another-secret-0123456789")["X-Hub-Signature-256"]
    headers = [("Authorization", key), ("X-Hub-Signature-256", genuine), ("X-Hub-Signature-256", forged)]
    answer = ingress.client.post(TRIGGER, params={"resourceId": webhook_id}, headers=headers, content=BODY)
    assert answer.json() == INVALID
    twice = [("Authorization", key), ("X-Hub-Signature-256", genuine), ("X-Hub-Signature-256", genuine)]
    answer = ingress.client.post(TRIGGER, params={"resourceId": webhook_id}, headers=twice, content=BODY)
    assert answer.status_code == 202, answer.text


def test_a_refusal_is_logged_with_its_reason_and_without_the_secret(
    world: World, ingress: Ingress, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(trigger_screening, "_refusals", trigger_screening._RefusalLog())  # a fresh second
    caplog.set_level(logging.INFO, logger=trigger_screening.__name__)
    webhook_id, key = webhook(
        world, verificationConfig={"provider": "STRIPE", "secret": signed.STRIPE_SECRET}
    )
    stale = signed.stripe_headers(BODY, at=now() - 3600)
    assert deliver(ingress, webhook_id, key, stale).json() == INVALID
    [record] = [r for r in caplog.records if r.name == trigger_screening.__name__]
    fields = {name: str(getattr(record, name, "")) for name in ("webhook_id", "provider", "reason")}
    assert fields["webhook_id"] == webhook_id
    assert fields["provider"] == "STRIPE"
    assert "Stripe-Signature t is 36" in fields["reason"] and "s old" in fields["reason"]
    logged = record.getMessage() + json.dumps(fields)
    assert signed.STRIPE_SECRET not in logged
    assert stale["Stripe-Signature"] not in logged
